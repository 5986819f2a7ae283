import { GantryError } from '../../../shared/errors.ts';
import type { CiJobsStore, JobRecord } from '../../../storage/types-ci-jobs.ts';
import { jobTokenDigest } from './job-tokens.ts';

/** A job token was refused because its job is no longer running; `jobStatus` is its status (the `Job-Status` header). */
export class JobNotRunningError extends GantryError {
  constructor(readonly jobStatus: string, reason = 'Job is not running') {
    super('GANTRY_E_JOB_NOT_RUNNING', reason, { reason });
  }
}

/**
 * The job-token rules of the runner protocol (reference/runner-protocol.md §7.1), in one place:
 * a job token is looked up by its digest (tokens themselves are never stored).
 * - `runningJob`: the job's own token while it runs (artifact uploads; GitLab's `authenticate_job!`).
 * - `downloadableJob`: the dependency's own token, even after it finished (GitLab 13.x,
 *   `authenticate_job!(require_running: false)`, reference §6.2), or the token of a running job
 *   of the same project (what a coordinator that keeps only digests hands out as the
 *   dependency token, like later GitLab's `authenticate_job_via_dependent_job!`).
 */
export class JobTokenAccess {
  constructor(private readonly deps: { jobs: Pick<CiJobsStore, 'findById' | 'findByTokenDigest'> }) {}

  /** Job `jobId` when `token` is its own and it is running: 404 for no such build, 403 otherwise. */
  async runningJob(jobId: number, token: string | undefined): Promise<JobRecord> {
    const job = await this.build(jobId);
    const owner = await this.tokenJob(token);
    if (!owner || owner.id !== job.id) throw new GantryError('GANTRY_E_JOB_TOKEN_INVALID');
    if (job.erased_at !== null) throw new JobNotRunningError(job.status, 'Job has been erased!');
    if (job.status !== 'running') throw new JobNotRunningError(job.status);
    return job;
  }

  /** Job `jobId` when `token` may download its artifacts (see the class comment): 404 for no such build, 403 otherwise. */
  async downloadableJob(jobId: number, token: string | undefined): Promise<JobRecord> {
    const job = await this.build(jobId);
    const owner = await this.tokenJob(token);
    if (!owner) throw new GantryError('GANTRY_E_JOB_TOKEN_INVALID');
    const ownToken = owner.id === job.id;
    const runningSibling = owner.status === 'running' && owner.project_id === job.project_id;
    if (!ownToken && !runningSibling) throw new GantryError('GANTRY_E_JOB_TOKEN_INVALID');
    if (job.erased_at !== null) throw new JobNotRunningError(job.status, 'Job has been erased!');
    return job;
  }

  private async build(jobId: number): Promise<JobRecord> {
    const job = await this.deps.jobs.findById(jobId);
    if (!job || job.type !== 'build') throw new GantryError('GANTRY_E_JOB_NOT_FOUND');
    return job;
  }

  private async tokenJob(token: string | undefined): Promise<JobRecord | undefined> {
    if (token === undefined || token === '') return undefined;
    return this.deps.jobs.findByTokenDigest(jobTokenDigest(token));
  }
}
