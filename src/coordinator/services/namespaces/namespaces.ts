import { GantryError } from '../../../shared/errors.ts';
import type { GroupQueriesStore, MembersStore, NamespaceRecord, NamespacesStore, UserRecord } from '../../../storage/types.ts';
import type { Lookup } from '../access/lookup.ts';
import { GUEST, OWNER, type Permissions } from '../access/permissions.ts';

export interface NamespaceListQuery {
  search?: string;
  /** Only the personal namespace and groups the caller owns (ignored for administrators). */
  ownedOnly: boolean;
}

/** A namespace as one caller may see it. */
export interface NamespaceView {
  namespace: NamespaceRecord;
  /** Distinct members of the group and its subgroups, for those who administer the group; else null. */
  membersCountWithDescendants: number | null;
}

export interface NamespacesServiceDeps {
  namespaces: Pick<NamespacesStore, 'list' | 'findById' | 'findByFullPath' | 'findUserNamespace' | 'descendantIds'>;
  groupQueries: Pick<GroupQueriesStore, 'groupIdsWithMemberLevel'>;
  members: Pick<MembersStore, 'listForSource'>;
  lookup: Pick<Lookup, 'findNamespace'>;
  permissions: Pick<Permissions, 'seesEveryNamespace' | 'canReadNamespace' | 'canAdminGroup'>;
}

/**
 * `/namespaces`: the places a project can live in. Administrators see every namespace; others
 * their personal namespace and the groups they are a direct member of, as GitLab lists them.
 */
export class NamespacesService {
  constructor(private readonly deps: NamespacesServiceDeps) {}

  async list(actor: UserRecord, query: NamespaceListQuery, page: { offset: number; limit: number }): Promise<{ items: NamespaceView[]; total: number }> {
    const { namespaces, groupQueries, permissions } = this.deps;
    let onlyIds: number[] | undefined;
    if (!permissions.seesEveryNamespace(actor)) {
      const personal = await namespaces.findUserNamespace(actor.id);
      const groups = await groupQueries.groupIdsWithMemberLevel(actor.id, query.ownedOnly ? OWNER : GUEST);
      onlyIds = personal ? [personal.id, ...groups] : groups;
    }
    const { items, total } = await namespaces.list({ onlyIds, search: query.search }, page);
    return { items: await Promise.all(items.map((namespace) => this.view(namespace, actor))), total };
  }

  /** `GET /namespaces/:id` (id or full path): a group the caller can read or the caller's own namespace. */
  async get(ref: string, actor: UserRecord): Promise<NamespaceView> {
    return this.view(await this.readable(ref, actor), actor);
  }

  /** The namespace (id or full path) when the caller may read it, else 404 Namespace Not Found. */
  async readable(ref: string, actor: UserRecord): Promise<NamespaceRecord> {
    const namespace = await this.deps.lookup.findNamespace(ref);
    if (!namespace || !(await this.deps.permissions.canReadNamespace(namespace, actor))) throw new GantryError('GANTRY_E_NAMESPACE_NOT_FOUND');
    return namespace;
  }

  /** Whether `path` is taken at the top level or under `parentId`, with a free alternative when it is. */
  async exists(path: string, parentId: number | undefined): Promise<{ exists: boolean; suggests: string[] }> {
    const { namespaces } = this.deps;
    let prefix = '';
    if (parentId !== undefined) {
      const parent = await namespaces.findById(parentId);
      if (!parent) return { exists: false, suggests: [] };
      prefix = `${parent.full_path}/`;
    }
    if (!(await namespaces.findByFullPath(prefix + path))) return { exists: false, suggests: [] };
    let counter = 1;
    while (await namespaces.findByFullPath(`${prefix}${path}${counter}`)) counter += 1;
    return { exists: true, suggests: [`${path}${counter}`] };
  }

  private async view(namespace: NamespaceRecord, actor: UserRecord): Promise<NamespaceView> {
    const administers = namespace.kind === 'group' && (await this.deps.permissions.canAdminGroup(namespace, actor));
    return { namespace, membersCountWithDescendants: administers ? await this.membersWithDescendants(namespace) : null };
  }

  private async membersWithDescendants(group: NamespaceRecord): Promise<number> {
    const { members, namespaces } = this.deps;
    const userIds = new Set<number>();
    for (const id of [group.id, ...(await namespaces.descendantIds(group.id))]) {
      for (const member of await members.listForSource('namespace', id)) userIds.add(member.user_id);
    }
    return userIds.size;
  }
}
