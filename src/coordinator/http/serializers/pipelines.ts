import type { PipelineRecord } from '../../../storage/types-ci.ts';

/** GitLab's PipelineBasic: a pipeline as jobs, lists and commits embed it. */
export interface PipelineBasicJson {
  id: number;
  iid: number;
  project_id: number;
  sha: string;
  ref: string;
  status: string;
  source: string;
  created_at: string;
  updated_at: string;
  web_url: string;
}

/** `projectFullPath` is `group/sub/project`, for the pipeline's web page. */
export function serializePipelineBasic(pipeline: PipelineRecord, base: { externalUrl: string; projectFullPath: string }): PipelineBasicJson {
  return {
    id: pipeline.id,
    iid: pipeline.iid,
    project_id: pipeline.project_id,
    sha: pipeline.sha,
    ref: pipeline.ref,
    status: pipeline.status,
    source: pipeline.source,
    created_at: pipeline.created_at,
    updated_at: pipeline.updated_at,
    web_url: `${base.externalUrl}/${base.projectFullPath}/-/pipelines/${pipeline.id}`,
  };
}
