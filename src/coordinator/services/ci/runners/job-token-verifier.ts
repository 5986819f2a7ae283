import type { CiJobsStore } from '../../../../storage/types-ci-jobs.ts';
import type { JobTokenIdentity, JobTokenVerifier } from '../../repository/git-http/job-tokens.ts';
import { jobTokenDigest } from './job-tokens.ts';

/**
 * Job tokens for git over HTTP (`gitlab-ci-token:<token>`): valid while the job is running
 * (or pending with a runner that took it), standing for the job's user on the job's own
 * project. Git access reads only that project with it (services/git-http/access.ts).
 */
export class RunningJobTokens implements JobTokenVerifier {
  constructor(private readonly jobs: Pick<CiJobsStore, 'findByTokenDigest'>) {}

  async verify(token: string): Promise<JobTokenIdentity | null> {
    if (token === '') return null;
    const job = await this.jobs.findByTokenDigest(jobTokenDigest(token));
    if (!job || job.user_id === null || job.erased_at !== null) return null;
    const live = job.status === 'running' || (job.status === 'pending' && job.runner_id !== null);
    return live ? { projectId: job.project_id, userId: job.user_id } : null;
  }
}
