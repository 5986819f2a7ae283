import { GantryError } from '../../../../shared/errors.ts';
import type { MergeRequestCommitsStore, MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import type { MergeRequestPermissions } from '../../access/merge-request-permissions.ts';
import type { Actor } from '../../access/permissions.ts';
import type { RepositoryAccess } from '../../repository/access.ts';

export interface MergeLookupsDeps {
  access: Pick<RepositoryAccess, 'forRead'>;
  mergeRequestPermissions: Pick<MergeRequestPermissions, 'canReadMergeRequests'>;
  commits: MergeRequestCommitsStore;
}

/**
 * `GET /projects/:id/repository/commits/:sha/merge_requests`: the requests whose head, merge or
 * squash commit is that commit. GitLab also matches every commit of a request's diffs; Gantry
 * keeps no per-request commit list, so a commit in the middle of a request finds nothing.
 */
export class MergeLookups {
  constructor(private readonly deps: MergeLookupsDeps) {}

  async forCommit(projectRef: string, actor: Actor, sha: string): Promise<MergeRequestRecord[]> {
    const { project, repository } = await this.deps.access.forRead(projectRef, actor);
    const commit = repository ? await repository.commit(sha) : null;
    if (!commit) throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND');
    if (!(await this.deps.mergeRequestPermissions.canReadMergeRequests(project, actor))) return [];
    return this.deps.commits.bySha(project.id, commit.id);
  }
}
