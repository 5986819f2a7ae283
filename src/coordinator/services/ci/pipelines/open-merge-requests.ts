import type { MergeRequestsStore } from '../../../../storage/types-merge-requests.ts';
import type { NamespacesStore, ProjectsStore, UserRecord } from '../../../../storage/types.ts';
import type { MergeRequestPermissions } from '../../access/merge-request-permissions.ts';
import { projectFullPath } from '../../namespaces/project-full-path.ts';

/** GitLab's MAX_OPEN_MERGE_REQUESTS_REFS. */
const MOST_REFERENCES = 4;

export interface OpenMergeRequestsDeps {
  mergeRequests: Pick<MergeRequestsStore, 'openBySource'>;
  projects: Pick<ProjectsStore, 'findById'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  mergeRequestPermissions: Pick<MergeRequestPermissions, 'canReadMergeRequests'>;
}

/** The branch a pipeline's open merge requests come from: its own ref, or its merge request's source. */
export interface MergeRequestSource {
  projectId: number;
  branch: string;
}

/**
 * CI_OPEN_MERGE_REQUESTS (GitLab's `Ci::Pipeline#open_merge_requests_refs`): the open merge
 * requests from a pipeline's source branch, read when the pipeline is created (its rules see
 * them) and again when each job is handed out, as GitLab reads them then too. The newest 4 are
 * taken first and those the pipeline's user may not read dropped after, as GitLab does; each
 * is named by its target project's full path (`group/project!12`).
 */
export class OpenMergeRequests {
  constructor(private readonly deps: OpenMergeRequestsDeps) {}

  async referencesFor(source: MergeRequestSource, user: UserRecord | null): Promise<string[]> {
    const newest = (await this.deps.mergeRequests.openBySource(source.projectId, source.branch)).sort((a, b) => b.id - a.id).slice(0, MOST_REFERENCES);
    const references = await Promise.all(
      newest.map(async (request) => {
        const target = await this.deps.projects.findById(request.project_id);
        if (!target || !(await this.deps.mergeRequestPermissions.canReadMergeRequests(target, user))) return null;
        return `${await projectFullPath(this.deps.namespaces, target)}!${request.iid}`;
      }),
    );
    return references.filter((reference) => reference !== null);
  }
}
