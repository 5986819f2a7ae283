import type { JobStatus } from '../../../../pipeline/types.ts';
import { GantryError } from '../../../../shared/errors.ts';
import type { CiJobsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import { jobTokenDigest } from './job-tokens.ts';

/** A job token was refused because its job is no longer running; `jobStatus` is its status (the `Job-Status` header). */
export class JobNotRunningError extends GantryError {
  constructor(readonly jobStatus: string, reason = 'Job is not running') {
    super('GANTRY_E_JOB_NOT_RUNNING', reason, { reason });
  }
}

/**
 * Whether a job token may send its job anything (GitLab's `authenticate_job!`, reference §4.2):
 * `forbidden` for no such job, a token that is not this job's, or (with GitLab's reason) an
 * erased job; `not-running` when the token is right but the job no longer runs: the runner is
 * told its status (`Job-Status`), which is how a cancel reaches it.
 */
export type JobAuthentication =
  | { kind: 'ok'; job: JobRecord }
  | { kind: 'forbidden'; reason?: string }
  | { kind: 'not-running'; status: JobStatus };

const ERASED = 'Job has been erased!';

/**
 * The job-token rules of the runner protocol (reference/runner-protocol.md §7.1), in one place:
 * a job token is looked up by its digest (tokens themselves are never stored). An unknown job
 * is refused like a wrong token, 403, on every runner route (GitLab 13.11+, reference §4.2).
 * - `updatableJob`: the job's own token while it runs, as an answer (PUT /jobs/:id and trace PATCH).
 * - `runningJob`: the same check for artifact uploads, thrown.
 * - `downloadableJob`: the dependency's own token, even after it finished (GitLab 13.x,
 *   `authenticate_job!(require_running: false)`, reference §6.2), or the token of a running job
 *   of the same project (what a coordinator that keeps only digests hands out as the
 *   dependency token, like later GitLab's `authenticate_job_via_dependent_job!`).
 */
export class JobTokenAccess {
  constructor(private readonly deps: { jobs: Pick<CiJobsStore, 'findById' | 'findByTokenDigest'> }) {}

  /** Job `jobId` when `token` is its own and it is running (or canceling); otherwise why not. */
  async updatableJob(jobId: number, token: string | undefined): Promise<JobAuthentication> {
    const job = await this.tokenJob(token);
    if (!job || job.id !== jobId || job.type !== 'build') return { kind: 'forbidden' };
    if (job.erased_at !== null) return { kind: 'forbidden', reason: ERASED };
    // GitLab's `processing_on_runner?`: a canceling job's runner still sends its after_script's trace and its final state.
    if (job.status !== 'running' && job.status !== 'canceling') return { kind: 'not-running', status: job.status };
    return { kind: 'ok', job };
  }

  /** Job `jobId` when `token` is its own and it is running; 403 otherwise. */
  async runningJob(jobId: number, token: string | undefined): Promise<JobRecord> {
    const answer = await this.updatableJob(jobId, token);
    switch (answer.kind) {
      case 'ok':
        return answer.job;
      case 'not-running':
        throw new JobNotRunningError(answer.status);
      case 'forbidden':
        throw forbidden(answer.reason);
    }
  }

  /** Job `jobId` when `token` may download its artifacts (see the class comment); 403 otherwise. */
  async downloadableJob(jobId: number, token: string | undefined): Promise<JobRecord> {
    const owner = await this.tokenJob(token);
    if (!owner) throw forbidden();
    const job = owner.id === jobId ? owner : await this.deps.jobs.findById(jobId);
    if (!job || job.type !== 'build') throw forbidden();
    const ownToken = owner.id === job.id;
    const runningSibling = owner.status === 'running' && owner.project_id === job.project_id;
    if (!ownToken && !runningSibling) throw forbidden();
    if (job.erased_at !== null) throw forbidden(ERASED);
    return job;
  }

  /** The running job whose own token this is (GitLab's `current_authenticated_job`); undefined otherwise. */
  async currentJob(token: string | undefined): Promise<JobRecord | undefined> {
    const job = await this.tokenJob(token);
    return job && job.type === 'build' && job.status === 'running' && job.erased_at === null ? job : undefined;
  }

  private async tokenJob(token: string | undefined): Promise<JobRecord | undefined> {
    if (token === undefined || token === '') return undefined;
    return this.deps.jobs.findByTokenDigest(jobTokenDigest(token));
  }
}

/** GitLab's `forbidden!(reason)`: 403, with the reason in the message when there is one (and no `Job-Status`). */
function forbidden(reason?: string): GantryError {
  return reason === undefined ? new GantryError('GANTRY_E_JOB_TOKEN_INVALID') : new GantryError('GANTRY_E_JOB_NOT_RUNNING', reason, { reason });
}
