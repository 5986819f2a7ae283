import type { PackageFileBlobs } from '../../../storage/types-packages.ts';
import { GantryError } from '../../../shared/errors.ts';
import type { RepositoryManager } from '../../../storage/git/types.ts';
import type { CustomAttributesStore, NamespacesStore, ProjectsStore, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { UserLifecycleStore } from '../../../storage/types-users.ts';
import type { AccountsService } from './accounts.ts';
import type { AvatarFiles } from './avatars.ts';
import type { CoordinatorEvents } from '../events.ts';

const GHOST_NAME = 'Ghost User';

/**
 * Removals run one at a time in a process: each re-reads its user (a concurrent removal of the
 * same user answers 404) and may create the ghost user, which must exist only once.
 */
let removalQueue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = removalQueue.then(work, work);
  removalQueue = run.catch(() => undefined);
  return run;
}

/**
 * Deleting a user: personal projects go with the personal namespace (repositories removed from
 * disk afterwards); authored records move to the ghost user unless `hard_delete`, which also
 * removes the groups the user alone owns.
 */
export interface UserRemovalDeps {
  users: Pick<UsersStore, 'findById' | 'findByUsername' | 'update' | 'delete'>;
  userLifecycle: Pick<UserLifecycleStore, 'personalProjectIds' | 'solelyOwnedGroupIds' | 'reassignContributions'>;
  namespaces: Pick<NamespacesStore, 'delete' | 'descendantIds' | 'findUserNamespace'>;
  projects: Pick<ProjectsStore, 'listByNamespaces'>;
  customAttributes: Pick<CustomAttributesStore, 'deleteAllFor'>;
  repositories: Pick<RepositoryManager, 'remove'>;
  events: Pick<CoordinatorEvents, 'publishProjectDeleted' | 'publishSystemEvent'>;
  accounts: Pick<AccountsService, 'createUser'>;
  /** Where the coordinator is reached: the ghost user's e-mail domain. */
  externalUrl: string;
  /** Removes the avatar files of the user and of the groups and projects removed with it (after their rows). */
  avatarFiles?: Pick<AvatarFiles, 'removeFor'>;
  /** Removes the package files of the projects removed with the user (after their rows). */
  packageFiles?: Pick<PackageFileBlobs, 'removeForProjects'>;
}

export class UserRemoval {
  constructor(private readonly deps: UserRemovalDeps) {}

  remove(user: UserRecord, hardDelete: boolean): Promise<void> {
    return oneAtATime(async () => {
      if (!(await this.deps.users.findById(user.id))) throw new GantryError('GANTRY_E_USER_NOT_FOUND');
      await this.removeNow(user, hardDelete);
    });
  }

  private async removeNow(user: UserRecord, hardDelete: boolean): Promise<void> {
    const stores = this.deps;
    const projectIds = await stores.userLifecycle.personalProjectIds(user.id);
    const groupIds: number[] = [];
    const solelyOwned = await stores.userLifecycle.solelyOwnedGroupIds(user.id);
    // GitLab's rule: a group's one owner goes only with hard_delete, which removes the group too.
    if (!hardDelete && solelyOwned.length > 0) throw new GantryError('GANTRY_E_USER_SOLE_OWNER', 'User cannot be removed while is the sole-owner of a group');
    if (hardDelete) {
      for (const groupId of solelyOwned) {
        const removed = await this.groupContents(groupId);
        projectIds.push(...removed.projectIds);
        groupIds.push(...removed.groupIds);
        await stores.namespaces.delete(groupId);
      }
    } else {
      const ghost = await this.ghostUser();
      await stores.userLifecycle.reassignContributions(user.id, ghost.id);
    }
    await stores.customAttributes.deleteAllFor('user', user.id);
    const namespace = await stores.namespaces.findUserNamespace(user.id);
    if (namespace) await stores.namespaces.delete(namespace.id);
    await stores.users.delete(user.id);
    await this.deps.avatarFiles?.removeFor('user', [user.id]);
    await this.deps.avatarFiles?.removeFor('group', groupIds);
    await this.deps.avatarFiles?.removeFor('project', projectIds);
    await this.deps.packageFiles?.removeForProjects(projectIds);
    await this.deps.events.publishSystemEvent({ name: 'user_destroy', user });
    for (const projectId of projectIds) {
      await this.deps.repositories.remove(projectId);
      this.deps.events.publishProjectDeleted({ project_id: projectId });
    }
  }

  /** A group with its subgroups, and the projects in them. */
  private async groupContents(groupId: number): Promise<{ groupIds: number[]; projectIds: number[] }> {
    const { namespaces, projects } = this.deps;
    const groupIds = [groupId, ...(await namespaces.descendantIds(groupId))];
    return { groupIds, projectIds: (await projects.listByNamespaces(groupIds)).map((project) => project.id) };
  }

  /** The placeholder owner of a deleted user's contributions, created on first need. */
  async ghostUser(): Promise<UserRecord> {
    const { users } = this.deps;
    let username = 'ghost';
    for (let suffix = 1; ; suffix += 1) {
      const holder = await users.findByUsername(username);
      if (!holder) break;
      if (holder.is_ghost) return holder;
      username = `ghost${suffix}`;
    }
    const host = new URL(this.deps.externalUrl).hostname || 'localhost';
    const created = await this.deps.accounts.createUser({
      username,
      name: GHOST_NAME,
      email: `${username}@${host}`,
      projects_limit: 0,
      can_create_group: false,
      profile: { bio: 'This is a "Ghost User", created to hold all issues authored by users that have since been deleted. This user cannot be removed.' },
    });
    return (await users.update(created.id, { is_ghost: true, state: 'blocked' })) ?? created;
  }
}
