import type { JobStatus } from '../../../pipeline/types.ts';
import type { CiJobsStore, JobRecord } from '../../../storage/types-ci-jobs.ts';
import { jobTokenDigest } from './job-tokens.ts';

/**
 * Who may update a job: GitLab's `authenticate_job!` (reference/runner-protocol.md §4.2).
 * `forbidden` without a status: no such job, a token that is not this job's, an erased job.
 * `not-running`: the token is right but the job is no longer running; the runner is told its
 * status (`Job-Status`), which is how a cancel reaches it.
 */
export type JobAuthentication =
  | { kind: 'ok'; job: JobRecord }
  | { kind: 'forbidden' }
  | { kind: 'not-running'; status: JobStatus };

/** Checks a job token against the job of the URL; only the token's digest is looked up. */
export async function authenticateJob(jobs: Pick<CiJobsStore, 'findByTokenDigest'>, jobId: number, token: string | undefined): Promise<JobAuthentication> {
  if (token === undefined || token === '') return { kind: 'forbidden' };
  const job = await jobs.findByTokenDigest(jobTokenDigest(token));
  if (!job || job.id !== jobId || job.type !== 'build' || job.erased_at !== null) return { kind: 'forbidden' };
  if (job.status !== 'running') return { kind: 'not-running', status: job.status };
  return { kind: 'ok', job };
}
