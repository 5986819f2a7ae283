import { GantryError } from '../../../shared/errors.ts';
import { parseRecordId } from '../../../shared/record-ids.ts';
import type { NamespaceRecord, NamespacesStore, ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { Actor, Permissions } from './permissions.ts';
import { remember } from './request-memo.ts';

/**
 * Resolves `:id` path parameters (an integer id or a URL-decoded full path) and applies the
 * read rule: what the actor may not see answers the same 404 as what does not exist.
 */
export class Lookup {
  constructor(
    private readonly projects: ProjectsStore,
    private readonly namespaces: NamespacesStore,
    private readonly users: UsersStore,
    private readonly permissions: Permissions,
  ) {}

  async findProject(idOrPath: string | number): Promise<ProjectRecord | undefined> {
    const ref = String(idOrPath);
    const id = parseRecordId(ref);
    if (id !== undefined) return id === null ? undefined : this.projects.findById(id);
    const slash = ref.lastIndexOf('/');
    if (slash <= 0) return undefined;
    const namespace = await this.namespaces.findByFullPath(ref.slice(0, slash));
    if (!namespace) return undefined;
    return this.projects.findByNamespaceAndPath(namespace.id, ref.slice(slash + 1));
  }

  /** A project the actor can read, else 404 Project Not Found. */
  async readableProject(idOrPath: string | number, actor: Actor): Promise<ProjectRecord> {
    const memo = this.permissions.memos.of(actor)?.projects;
    const project = await remember(memo, String(idOrPath), () => this.findProject(idOrPath));
    if (!project || project.pending_delete || !(await this.permissions.canReadProject(project, actor))) {
      throw new GantryError('GANTRY_E_PROJECT_NOT_FOUND');
    }
    return project;
  }

  /** A namespace of either kind by id or full path (no read rule applied). */
  async findNamespace(idOrPath: string | number): Promise<NamespaceRecord | undefined> {
    const ref = String(idOrPath);
    const id = parseRecordId(ref);
    if (id !== undefined) return id === null ? undefined : this.namespaces.findById(id);
    return this.namespaces.findByFullPath(ref);
  }

  async findGroup(idOrPath: string | number): Promise<NamespaceRecord | undefined> {
    const namespace = await this.findNamespace(idOrPath);
    return namespace?.kind === 'group' ? namespace : undefined;
  }

  /** A group the actor can read, else 404 Group Not Found. */
  async readableGroup(idOrPath: string | number, actor: Actor): Promise<NamespaceRecord> {
    const group = await this.findGroup(idOrPath);
    if (!group || !(await this.permissions.canReadGroup(group, actor))) throw new GantryError('GANTRY_E_GROUP_NOT_FOUND');
    return group;
  }

  /** A user by id or username, else 404 User Not Found. */
  async user(idOrUsername: string | number): Promise<UserRecord> {
    const ref = String(idOrUsername);
    const id = parseRecordId(ref);
    const user = id === undefined ? await this.users.findByUsername(ref) : id === null ? undefined : await this.users.findById(id);
    if (!user || user.is_ghost) throw new GantryError('GANTRY_E_USER_NOT_FOUND');
    return user;
  }
}
