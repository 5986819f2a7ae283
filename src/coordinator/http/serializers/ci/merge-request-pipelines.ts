import type { HeadPipeline } from '../../../services/ci/pipelines/merge-request-pipeline-views.ts';
import { serializePipeline, serializePipelineBasic, type PipelineBasicJson, type PipelineJson } from './pipelines.ts';

/**
 * A merge request answer's `head_pipeline` (the full pipeline entity, single view only) and
 * `pipeline` (the basic one), from `MergeRequestPipelinesView.headPipelines`; null without one.
 */
export function mergeRequestPipelineFields(head: HeadPipeline | undefined, externalUrl: string): { head_pipeline: PipelineJson | null; pipeline: PipelineBasicJson | null } {
  if (!head) return { head_pipeline: null, pipeline: null };
  const base = { externalUrl, projectFullPath: head.target.fullPath };
  return { head_pipeline: serializePipeline(head.view, base), pipeline: serializePipelineBasic(head.view.pipeline, base) };
}
