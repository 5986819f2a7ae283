import type { CoordinatorContext } from './context.ts';
import { MergeRequestPermissions } from './services/access/merge-request-permissions.ts';
import type { PipelineCreation } from './services/ci/pipelines/creation.ts';
import { MergeRequestInfos } from './services/ci/pipelines/merge-request-info.ts';
import { MergeRequestPipelinesView } from './services/ci/pipelines/merge-request-pipeline-views.ts';
import { MergeRequestPipelines } from './services/ci/pipelines/merge-request-pipelines.ts';
import type { PipelineViews } from './services/ci/pipelines/pipeline-views.ts';
import { VisibleMergeRequests } from './services/planning/merge-requests/visible.ts';
import type { TaskQueue } from './services/task-queue.ts';

/**
 * Merge request pipelines: the observer (announce `mergeRequestRefreshed` to
 * `mergeRequestPipelines`), its task handler, and the view behind
 * `/merge_requests/:iid/pipelines` and the requests' head pipelines.
 */
export function buildMergeRequestPipelines(context: CoordinatorContext, deps: { queue: TaskQueue; creation: PipelineCreation; views: PipelineViews }) {
  const { stores, lookup, permissions, repositories, logger } = context;
  const infos = new MergeRequestInfos({
    mergeRequests: stores.mergeRequests, projects: stores.projects, namespaces: stores.namespaces, users: stores.users, milestones: stores.milestones, externalUrl: context.config.externalUrl,
  });
  const mergeRequestPipelines = new MergeRequestPipelines({
    queue: deps.queue, creation: deps.creation, infos, mergeRequests: stores.mergeRequests, requestPipelines: stores.mergeRequestPipelines,
    projects: stores.projects, users: stores.users, repositories, logger,
  });
  const visible = new VisibleMergeRequests({ lookup, mergeRequests: stores.mergeRequests, mergeRequestPermissions: new MergeRequestPermissions(permissions) });
  const mergeRequestPipelinesView = new MergeRequestPipelinesView({
    visible, permissions, requestPipelines: stores.mergeRequestPipelines, pipelines: stores.pipelines, projects: stores.projects, repositories, views: deps.views, creator: mergeRequestPipelines,
  });
  return { mergeRequestPipelines, mergeRequestPipelinesView };
}
