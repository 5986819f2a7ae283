import { accessDenied, GantryError, validationFailed } from '../../../shared/errors.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { AccessLevel, MemberListFilter, MemberQueriesStore, MemberRecord, MembersStore, MemberSourceType, NamespaceRecord, NamespacesStore, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { Lookup } from '../access/lookup.ts';
import { accessLevelName } from '../access/access-level-names.ts';
import { inheritedMembers } from './members-inherited.ts';
import { OWNER, type Actor, type MemberSource, type Permissions } from '../access/permissions.ts';
import type { CoordinatorEvents, SystemEvent } from '../events.ts';

/** GitLab 10.x: projects take guest..master; groups also take owner. */
const PROJECT_LEVELS: readonly number[] = [10, 20, 30, 40];
const GROUP_LEVELS: readonly number[] = [10, 20, 30, 40, 50];

export type MemberSourceKind = MemberSource['kind'];

/** The project or group of a members route: its kind and `:id` (an id or a full path). */
export interface MemberSourceRef {
  kind: MemberSourceKind;
  ref: string;
}

export interface MemberInput {
  accessLevel: number;
  /** YYYY-MM-DD, null to clear, undefined to keep. */
  expiresAt?: string | null;
}

/** A membership with its user. */
export interface MemberView {
  member: MemberRecord;
  user: UserRecord;
}

export interface Page {
  offset: number;
  limit: number;
}

export interface MembersServiceDeps {
  members: Pick<MembersStore, 'find' | 'add' | 'update' | 'remove'>;
  memberQueries: Pick<MemberQueriesStore, 'list' | 'countOwners'>;
  namespaces: Pick<NamespacesStore, 'findById' | 'ancestors'>;
  users: Pick<UsersStore, 'findById' | 'findByIds'>;
  lookup: Pick<Lookup, 'readableProject' | 'readableGroup' | 'user'>;
  permissions: Pick<Permissions, 'canManageMembers' | 'canTouchMemberLevel'>;
  /** System hooks' `user_add_to_team`, `user_remove_from_team`, `user_add_to_group`, `user_remove_from_group`. */
  events?: Pick<CoordinatorEvents, 'publishSystemEvent'>;
}

/**
 * Direct members of projects and groups: one implementation behind
 * `/projects/:id/members` and `/groups/:id/members`.
 */
export class MembersService {
  constructor(private readonly deps: MembersServiceDeps) {}

  /** The project or group behind `:id` when the actor can read it, else 404. */
  async source({ kind, ref }: MemberSourceRef, actor: Actor): Promise<MemberSource> {
    if (kind === 'project') return { kind, project: await this.deps.lookup.readableProject(ref, actor) };
    return { kind, group: await this.deps.lookup.readableGroup(ref, actor) };
  }

  async list(sourceRef: MemberSourceRef, actor: Actor, filter: MemberListFilter, page: Page): Promise<{ items: MemberView[]; total: number }> {
    const { type, id } = sourceKey(await this.source(sourceRef, actor));
    const { items, total } = await this.deps.memberQueries.list(type, id, filter, page);
    return { items: await this.withUsers(items), total };
  }

  /** Direct and inherited members, one per user with the highest level (`/members/all`). */
  async listAll(sourceRef: MemberSourceRef, actor: Actor, filter: MemberListFilter, page: Page): Promise<{ items: MemberView[]; total: number }> {
    const all = await inheritedMembers(this.deps, await this.source(sourceRef, actor), filter);
    return { items: await this.withUsers(all.slice(page.offset, page.offset + page.limit)), total: all.length };
  }

  async getFromAll(sourceRef: MemberSourceRef, actor: Actor, userId: number): Promise<MemberView> {
    const [member] = await inheritedMembers(this.deps, await this.source(sourceRef, actor), { userIds: [userId] });
    if (!member) throw new GantryError('GANTRY_E_MEMBER_NOT_FOUND');
    return this.withUser(member);
  }

  async get(sourceRef: MemberSourceRef, actor: Actor, userId: number): Promise<MemberView> {
    return this.withUser(await this.existing(await this.source(sourceRef, actor), userId));
  }

  async add(sourceRef: MemberSourceRef, actor: UserRecord, userId: number, input: MemberInput): Promise<MemberView> {
    const source = await this.source(sourceRef, actor);
    await this.requireManager(source, actor);
    const accessLevel = checkLevel(source, input.accessLevel);
    const user = await this.deps.lookup.user(userId);
    const { type, id } = sourceKey(source);
    if (await this.deps.members.find(type, id, user.id)) throw memberExists();
    await this.requireLevelRights(source, actor, [accessLevel]);
    checkExpiry(input.expiresAt);
    await this.refuseBelowInherited(source, user.id, accessLevel);
    const now = new Date().toISOString();
    const member = await this.deps.members
      .add({
        source_type: type,
        source_id: id,
        user_id: user.id,
        access_level: accessLevel,
        notification_level: 3,
        expires_at: input.expiresAt ?? null,
        created_by_id: actor.id,
        created_at: now,
        updated_at: now,
      })
      .catch((error: unknown) => {
        // A concurrent request added the same member between the check above and this insert.
        throw isUniqueViolation(error) ? memberExists() : error;
      });
    await this.deps.events?.publishSystemEvent(membershipEvent('added', source, user, accessLevel, member.expires_at));
    return { member, user };
  }

  async update(sourceRef: MemberSourceRef, actor: UserRecord, userId: number, input: MemberInput): Promise<MemberView> {
    const source = await this.source(sourceRef, actor);
    await this.requireManager(source, actor);
    const member = await this.existing(source, userId);
    const accessLevel = checkLevel(source, input.accessLevel);
    await this.requireLevelRights(source, actor, [member.access_level, accessLevel]);
    checkExpiry(input.expiresAt);
    await this.refuseBelowInherited(source, member.user_id, accessLevel);
    if (accessLevel < OWNER) await this.refuseLastOwner(source, member);
    const changes: { access_level: AccessLevel; expires_at?: string | null } = { access_level: accessLevel };
    if (input.expiresAt !== undefined) changes.expires_at = input.expiresAt;
    const updated = await this.deps.members.update(member.id, changes);
    if (!updated) throw new GantryError('GANTRY_E_MEMBER_NOT_FOUND');
    const view = await this.withUser(updated);
    await this.deps.events?.publishSystemEvent(membershipEvent('updated', source, view.user, accessLevel, updated.expires_at));
    return view;
  }

  /** Managers remove members; anyone may leave. */
  async remove(sourceRef: MemberSourceRef, actor: UserRecord, userId: number): Promise<void> {
    const source = await this.source(sourceRef, actor);
    const member = await this.existing(source, userId);
    if (member.user_id !== actor.id) {
      await this.requireManager(source, actor);
      await this.requireLevelRights(source, actor, [member.access_level]);
    }
    await this.refuseLastOwner(source, member);
    const { type, id } = sourceKey(source);
    await this.deps.members.remove(type, id, member.user_id);
    const user = await this.deps.users.findById(member.user_id);
    if (user) await this.deps.events?.publishSystemEvent(membershipEvent('removed', source, user, member.access_level, member.expires_at));
  }

  private async existing(source: MemberSource, userId: number): Promise<MemberRecord> {
    const { type, id } = sourceKey(source);
    const member = await this.deps.members.find(type, id, userId);
    if (!member) throw new GantryError('GANTRY_E_MEMBER_NOT_FOUND');
    return member;
  }

  private async requireManager(source: MemberSource, actor: UserRecord): Promise<void> {
    if (!(await this.deps.permissions.canManageMembers(source, actor))) throw accessDenied();
  }

  private async requireLevelRights(source: MemberSource, actor: UserRecord, levels: readonly AccessLevel[]): Promise<void> {
    if (!(await this.deps.permissions.canTouchMemberLevel(source, actor, levels))) throw accessDenied();
  }

  /**
   * GitLab's `higher_access_level_than_group`: a direct membership may not be lower than the
   * user's highest membership of the groups above (a project's group and its ancestors, a
   * group's ancestors).
   */
  private async refuseBelowInherited(source: MemberSource, userId: number, accessLevel: AccessLevel): Promise<void> {
    const groups = source.kind === 'group' ? await this.deps.namespaces.ancestors(source.group.id) : await this.projectGroups(source.project.namespace_id);
    let highest: { level: number; groupName: string } | undefined;
    for (const group of groups) {
      const member = await this.deps.members.find('namespace', group.id, userId);
      if (member && member.access_level > (highest?.level ?? 0)) highest = { level: member.access_level, groupName: group.name };
    }
    if (highest && highest.level > accessLevel) {
      throw validationFailed({ access_level: [`should be greater than or equal to ${accessLevelName(highest.level)} inherited membership from group ${highest.groupName}`] });
    }
  }

  private async projectGroups(namespaceId: number): Promise<NamespaceRecord[]> {
    const namespace = await this.deps.namespaces.findById(namespaceId);
    if (!namespace || namespace.kind !== 'group') return [];
    return [namespace, ...(await this.deps.namespaces.ancestors(namespace.id))];
  }

  /** A group keeps at least one owner among itself and its ancestors. */
  private async refuseLastOwner(source: MemberSource, member: MemberRecord): Promise<void> {
    if (source.kind !== 'group' || member.access_level < OWNER) return;
    const chain = [source.group.id, ...(await this.deps.namespaces.ancestors(source.group.id)).map((group) => group.id)];
    const others = await this.deps.memberQueries.countOwners('namespace', chain, member.id);
    if (others === 0) throw new GantryError('GANTRY_E_LAST_OWNER', 'A group must have at least one owner', { reason: 'A group must have at least one owner' });
  }

  private async withUsers(members: readonly MemberRecord[]): Promise<MemberView[]> {
    const users = new Map((await this.deps.users.findByIds(members.map((member) => member.user_id))).map((user) => [user.id, user]));
    return members.flatMap((member) => {
      const user = users.get(member.user_id);
      return user ? [{ member, user }] : [];
    });
  }

  private async withUser(member: MemberRecord): Promise<MemberView> {
    const [view] = await this.withUsers([member]);
    if (!view) throw new GantryError('GANTRY_E_MEMBER_NOT_FOUND');
    return view;
  }
}

function sourceKey(source: MemberSource): { type: MemberSourceType; id: number } {
  return source.kind === 'project' ? { type: 'project', id: source.project.id } : { type: 'namespace', id: source.group.id };
}

function checkLevel(source: MemberSource, level: number): AccessLevel {
  const allowed = source.kind === 'project' ? PROJECT_LEVELS : GROUP_LEVELS;
  if (!allowed.includes(level)) throw validationFailed({ access_level: ['is not included in the list'] });
  return level as AccessLevel;
}

function checkExpiry(expiresAt: string | null | undefined): void {
  if (!expiresAt) return;
  const today = new Date().toISOString().slice(0, 10);
  if (expiresAt < today) throw validationFailed({ expires_at: ['cannot be a date in the past'] });
}

function memberExists(): GantryError {
  return new GantryError('GANTRY_E_ALREADY_EXISTS', 'Member already exists', { resource: 'Member' });
}

const MEMBERSHIP_EVENTS = {
  added: { project: 'user_add_to_team', group: 'user_add_to_group' },
  updated: { project: 'user_update_for_team', group: 'user_update_for_group' },
  removed: { project: 'user_remove_from_team', group: 'user_remove_from_group' },
} as const;

/** The system event of a member added to, edited in or removed from a project (GitLab's "team") or a group. */
function membershipEvent(change: keyof typeof MEMBERSHIP_EVENTS, source: MemberSource, user: UserRecord, accessLevel: number, expiresAt: string | null): SystemEvent {
  if (source.kind === 'project') return { name: MEMBERSHIP_EVENTS[change].project, project: source.project, user, accessLevel };
  return { name: MEMBERSHIP_EVENTS[change].group, group: source.group, user, accessLevel, expiresAt };
}
