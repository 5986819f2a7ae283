import { notFound } from '../../shared/errors.ts';
import type { NamespaceRecord, UserRecord } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import { serializeNamespace, type NamespaceJson } from '../http/serializers/namespaces.ts';
import { GUEST, OWNER } from './permissions.ts';

export interface NamespaceListQuery {
  search?: string;
  /** Only the personal namespace and groups the caller owns (ignored for administrators). */
  ownedOnly: boolean;
}

/**
 * `/namespaces`: the places a project can live in. Administrators see every namespace; others
 * their personal namespace and the groups they are a direct member of, as GitLab lists them.
 */
export class NamespacesService {
  constructor(private readonly context: CoordinatorContext) {}

  async list(actor: UserRecord, query: NamespaceListQuery, page: { offset: number; limit: number }): Promise<{ items: NamespaceJson[]; total: number }> {
    const { stores } = this.context;
    let onlyIds: number[] | undefined;
    if (!actor.is_admin) {
      const personal = await stores.namespaces.findUserNamespace(actor.id);
      const groups = await stores.groupQueries.groupIdsWithMemberLevel(actor.id, query.ownedOnly ? OWNER : GUEST);
      onlyIds = personal ? [personal.id, ...groups] : groups;
    }
    const { items, total } = await stores.namespaces.list({ onlyIds, search: query.search }, page);
    return { items: await Promise.all(items.map((namespace) => this.present(namespace, actor))), total };
  }

  /** `GET /namespaces/:id` (id or full path): a group the caller can read or the caller's own namespace. */
  async get(ref: string, actor: UserRecord): Promise<NamespaceJson> {
    return this.present(await this.readable(ref, actor), actor);
  }

  /** The namespace (id or full path) when the caller may read it, else 404 Namespace Not Found. */
  async readable(ref: string, actor: UserRecord): Promise<NamespaceRecord> {
    const namespace = await this.context.lookup.findNamespace(ref);
    if (!namespace || !(await this.canRead(namespace, actor))) throw notFound('Namespace');
    return namespace;
  }

  /** Whether `path` is taken at the top level or under `parentId`, with a free alternative when it is. */
  async exists(path: string, parentId: number | undefined): Promise<{ exists: boolean; suggests: string[] }> {
    const { namespaces } = this.context.stores;
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

  private async canRead(namespace: NamespaceRecord, actor: UserRecord): Promise<boolean> {
    if (actor.is_admin) return true;
    if (namespace.kind === 'user') return namespace.owner_id === actor.id;
    return this.context.permissions.canReadGroup(namespace, actor);
  }

  private async present(namespace: NamespaceRecord, actor: UserRecord): Promise<NamespaceJson> {
    const externalUrl = this.context.config.externalUrl;
    if (namespace.kind !== 'group' || !(await this.context.permissions.canAdminGroup(namespace, actor))) {
      return serializeNamespace(namespace, externalUrl);
    }
    return serializeNamespace(namespace, externalUrl, await this.membersWithDescendants(namespace));
  }

  private async membersWithDescendants(group: NamespaceRecord): Promise<number> {
    const { members, namespaces } = this.context.stores;
    const userIds = new Set<number>();
    for (const id of [group.id, ...(await namespaces.descendantIds(group.id))]) {
      for (const member of await members.listForSource('namespace', id)) userIds.add(member.user_id);
    }
    return userIds.size;
  }
}
