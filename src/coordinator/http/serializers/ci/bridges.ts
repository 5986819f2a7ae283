import type { BridgeView } from '../../../services/ci/pipelines/pipeline-views.ts';
import type { JobView } from '../../../services/ci/pipelines/job-views.ts';
import { serializeJobBasic, type JobBasicJson } from './jobs.ts';
import { serializePipelineBasic, type PipelineBasicJson, type PipelineUrlBase } from './pipelines.ts';

/** GitLab's Bridge entity: JobBasic and the pipeline the bridge created. */
export interface BridgeJson extends JobBasicJson {
  downstream_pipeline: PipelineBasicJson | null;
}

export function serializeBridge(view: BridgeView, base: PipelineUrlBase, now = Date.now()): BridgeJson {
  const downstream = view.downstream ? serializePipelineBasic(view.downstream.pipeline, { externalUrl: base.externalUrl, projectFullPath: view.downstream.fullPath }) : null;
  return { ...serializeJobBasic(view, base, now), downstream_pipeline: downstream };
}

/**
 * A bridge the jobs API just played (`Entities::Ci::Bridge`): it was manual, so it has created
 * no downstream pipeline yet (that is created after the play commits).
 */
export function serializePlayedBridge(view: JobView, externalUrl: string, now = Date.now()): BridgeJson {
  return { ...serializeJobBasic(view, { externalUrl, projectFullPath: view.target.fullPath }, now), downstream_pipeline: null };
}
