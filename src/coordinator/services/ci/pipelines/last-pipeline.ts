import type { ProjectRecord } from '../../../../storage/types.ts';
import type { PipelinesStore } from '../../../../storage/types-ci.ts';
import type { Actor, Permissions } from '../../access/permissions.ts';
import type { LastPipeline, LastPipelineLookup } from '../../repository/commits.ts';

export interface LastPipelineDeps {
  pipelines: Pick<PipelinesStore, 'latestFor'>;
  permissions: Pick<Permissions, 'canReadJobs'>;
}

/**
 * A commit's `last_pipeline` (and `status`): the newest pipeline of its sha, shown to those
 * who may read the project's pipelines; null otherwise or when there is none.
 */
export function lastPipelineLookup(deps: LastPipelineDeps): LastPipelineLookup {
  return async (project: ProjectRecord, sha: string, actor: Actor): Promise<LastPipeline | null> => {
    if (!(await deps.permissions.canReadJobs(project, actor))) return null;
    const pipeline = await deps.pipelines.latestFor(project.id, sha);
    return pipeline ? { id: pipeline.id, ref: pipeline.ref, sha: pipeline.sha, status: pipeline.status } : null;
  };
}
