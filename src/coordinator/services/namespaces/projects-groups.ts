import type { NamespaceRecord, NamespacesStore } from '../../../storage/types.ts';
import type { AccessFactsStore } from '../../../storage/types-access.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Actor, Permissions } from '../access/permissions.ts';

export interface ProjectGroupsQuery {
  search?: string;
  skipGroups?: number[];
  withShared: boolean;
  sharedMinAccessLevel?: number;
  sharedVisibleOnly: boolean;
}

export interface ProjectGroupsDeps {
  accessFacts: Pick<AccessFactsStore, 'namespaceChain' | 'projectShares'>;
  namespaces: Pick<NamespacesStore, 'findByIds'>;
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'readableGroupIds'>;
}

/**
 * `GET /projects/:id/groups`: the groups above a readable project, and with `with_shared` the
 * groups it is shared with (only those the caller can see with `shared_visible_only`).
 */
export class ProjectGroupsService {
  constructor(private readonly deps: ProjectGroupsDeps) {}

  async list(ref: string, actor: Actor, query: ProjectGroupsQuery): Promise<NamespaceRecord[]> {
    const { accessFacts, namespaces, lookup, permissions } = this.deps;
    const project = await lookup.readableProject(ref, actor);
    const found = new Map<number, NamespaceRecord>();
    for (const namespace of await accessFacts.namespaceChain(project.namespace_id)) {
      if (namespace.kind === 'group') found.set(namespace.id, namespace);
    }
    if (query.withShared) {
      const shares = await accessFacts.projectShares(project.id);
      const minimum = query.sharedMinAccessLevel ?? 0;
      let shared = await namespaces.findByIds(shares.filter((share) => share.group_access >= minimum).map((share) => share.group_id));
      if (query.sharedVisibleOnly) {
        const readable = await permissions.readableGroupIds(shared, actor);
        shared = shared.filter((group) => readable.has(group.id));
      }
      for (const group of shared) found.set(group.id, group);
    }
    const skipped = new Set(query.skipGroups ?? []);
    const search = query.search?.toLowerCase();
    return [...found.values()]
      .filter((group) => !skipped.has(group.id))
      .filter((group) => !search || group.name.toLowerCase().includes(search) || group.path.toLowerCase().includes(search))
      .sort((a, b) => b.id - a.id);
  }
}
