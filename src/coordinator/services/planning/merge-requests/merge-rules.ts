import { GantryError } from '../../../../shared/errors.ts';
import { isDraftTitle, type MergeRequestChanges, type MergeRequestRecord, type MergeRequestsStore } from '../../../../storage/types-merge-requests.ts';
import type { PipelineRecord, PipelinesStore } from '../../../../storage/types-ci.ts';
import type { ProjectRecord } from '../../../../storage/types.ts';

/** GitLab's answers of the merge endpoint, raised by the merge services. */
export const MERGE_MESSAGES = {
  shaMismatch: (sha: string) => `SHA does not match HEAD of source branch: ${sha}`,
  branchCannotBeMerged: 'Branch cannot be merged',
  notAllowed: 'Method Not Allowed',
} as const;

export const notMergeable = (): GantryError => new GantryError('GANTRY_E_MERGE_REQUEST_NOT_MERGEABLE', MERGE_MESSAGES.notAllowed);
export const branchCannotBeMerged = (): GantryError => new GantryError('GANTRY_E_MERGE_REQUEST_BRANCH_UNMERGEABLE', MERGE_MESSAGES.branchCannotBeMerged);

/**
 * The request's head pipeline: the one mr-pipelines recorded (head_pipeline_id), else the
 * newest pipeline of the source project for the source tip.
 */
export async function headPipelineOf(
  pipelines: Pick<PipelinesStore, 'findById' | 'latestFor'>,
  mergeRequest: MergeRequestRecord,
  sourceSha: string,
): Promise<PipelineRecord | undefined> {
  if (mergeRequest.head_pipeline_id !== null) {
    const recorded = await pipelines.findById(mergeRequest.head_pipeline_id);
    if (recorded && recorded.sha === sourceSha) return recorded;
  }
  if (mergeRequest.source_project_id === null) return undefined;
  return pipelines.latestFor(mergeRequest.source_project_id, sourceSha);
}

/** Whether the pipeline rule lets the request merge now (GitLab: a required pipeline must have succeeded; skipped is not success). */
export function pipelineAllowsMerge(project: ProjectRecord, pipeline: PipelineRecord | undefined): boolean {
  if (!project.only_allow_merge_if_pipeline_succeeds) return true;
  return pipeline?.status === 'success';
}

/**
 * GitLab's `mergeable?` without the git part and the threads: open, not a draft, and (unless the
 * merge waits for its pipeline) the pipeline rule. MergeService.check adds
 * `only_allow_merge_if_all_discussions_are_resolved` (unresolved threads are a 405 too).
 */
export function assertMergeableState(project: ProjectRecord, mergeRequest: MergeRequestRecord, pipeline: PipelineRecord | undefined, skipPipelineCheck: boolean): void {
  if (mergeRequest.state !== 'opened') throw notMergeable();
  if (isDraftTitle(mergeRequest.title)) throw notMergeable();
  if (!skipPipelineCheck && !pipelineAllowsMerge(project, pipeline)) throw notMergeable();
}

/** The squash GitLab applies: the project's `always`/`never` win over the request's wish. */
export function squashOnMerge(project: ProjectRecord, requested: boolean): boolean {
  if (project.squash_option === 'always') return true;
  if (project.squash_option === 'never') return false;
  return requested;
}

/**
 * A compare-and-set write that survives background writes: when another write bumped the
 * version (a refresh, a merge status check), the request is read again and the write retried
 * while `holds` is still true of it. Undefined when `holds` stopped holding (another merge, a
 * close) or the request is gone.
 */
export async function updateWhile(
  store: Pick<MergeRequestsStore, 'updateIfUnchanged' | 'findByIid'>,
  mergeRequest: MergeRequestRecord,
  holds: (current: MergeRequestRecord) => boolean,
  changes: MergeRequestChanges,
): Promise<MergeRequestRecord | undefined> {
  let current: MergeRequestRecord | undefined = mergeRequest;
  for (let attempt = 0; attempt < 5 && current && holds(current); attempt += 1) {
    const written = await store.updateIfUnchanged(current.id, current.lock_version, changes);
    if (written) return written;
    current = await store.findByIid(current.project_id, current.iid);
  }
  return undefined;
}

/** Open and not a draft: what a merge, or a wait for the pipeline, needs of the request as stored. */
export const openAndReady = (current: MergeRequestRecord): boolean => current.state === 'opened' && !isDraftTitle(current.title);
