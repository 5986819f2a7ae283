import { isDraftTitle, type MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import type { PipelineRecord, PipelinesStore, PipelineStatus } from '../../../../storage/types-ci.ts';
import type { ProjectRecord } from '../../../../storage/types.ts';
import { headPipelineOf, pipelineAllowsMerge } from './merge-rules.ts';

/**
 * GitLab's CheckCiStatusService as `detailed_merge_status` reads it: `passed` (no pipeline is
 * required, or the head pipeline succeeded), `running` (required and the head pipeline is still
 * active: `ci_still_running`), `failed` (required and missing or not successful: `ci_must_pass`).
 */
export type CiMergeCheck = 'passed' | 'running' | 'failed';

/** GitLab's `Ci::HasStatus::ACTIVE_STATUSES` (`created`, `manual` and `scheduled` are not active). */
const ACTIVE_STATUSES: ReadonlySet<PipelineStatus> = new Set<PipelineStatus>(['waiting_for_resource', 'pending', 'running']);

export function ciMergeCheck(project: ProjectRecord, pipeline: PipelineRecord | undefined): CiMergeCheck {
  if (pipelineAllowsMerge(project, pipeline)) return 'passed';
  return pipeline !== undefined && ACTIVE_STATUSES.has(pipeline.status) ? 'running' : 'failed';
}

/**
 * The CI check of each of `records` that is not `passed`. Only requests every earlier check lets
 * through (open, checked mergeable, not a draft) in a project that requires a successful
 * pipeline read their head pipeline (the one built for the refreshed head), so other pages cost
 * no statement.
 */
export async function failingCiChecks(
  pipelines: Pick<PipelinesStore, 'findById' | 'latestFor'>,
  projects: ReadonlyMap<number, ProjectRecord>,
  records: readonly MergeRequestRecord[],
): Promise<Map<number, CiMergeCheck>> {
  const candidates = records.filter(
    (record) => record.state === 'opened' && record.merge_status === 'can_be_merged' && !isDraftTitle(record.title) && projects.get(record.project_id)?.only_allow_merge_if_pipeline_succeeds === true,
  );
  const found = await Promise.all(
    candidates.map(async (record): Promise<Array<[number, CiMergeCheck]>> => {
      const project = projects.get(record.project_id)!;
      const pipeline = record.head_sha === null ? undefined : await headPipelineOf(pipelines, record, record.head_sha);
      const check = ciMergeCheck(project, pipeline);
      return check === 'passed' ? [] : [[record.id, check]];
    }),
  );
  return new Map(found.flat());
}
