import type { BridgeView } from '../../../services/ci/pipelines/pipeline-views.ts';
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
