/** The pipelines of merge requests (ci_pipelines.merge_request_id, merge_requests.head_pipeline_id). */
import type { Page, PipelineRecord } from './types-ci.ts';

/** What counts as a request's pipeline: its own (merge_request_id) and its source branch's at its commits. */
export interface MergeRequestPipelinesQuery {
  mergeRequestId: number;
  /** null when the source project is gone: only the request's own pipelines then. */
  sourceProjectId: number | null;
  sourceBranch: string;
  /** The request's commits (bounded by the caller). */
  commitShas: readonly string[];
}

export interface MergeRequestPipelinesStore {
  /** Newest first. */
  list(query: MergeRequestPipelinesQuery, page: Page): Promise<{ items: PipelineRecord[]; total: number }>;
  /**
   * Sets head_pipeline_id to the request's newest pipeline at its current head_sha, preferring
   * its own (merge request) pipelines to branch pipelines, in one statement; the id set, or null.
   */
  refreshHeadPipeline(mergeRequestId: number): Promise<number | null>;
  /** Whether the request has a merge request pipeline of its own at this commit. */
  hasOwnPipelineAt(mergeRequestId: number, sha: string): Promise<boolean>;
}
