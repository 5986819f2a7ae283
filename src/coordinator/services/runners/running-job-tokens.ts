import type { CiJobsStore } from '../../../storage/types-ci-jobs.ts';
import type { JobTokenIdentity, JobTokenVerifier } from '../git-http/job-tokens.ts';
import { jobTokenDigest } from './job-tokens.ts';

/**
 * Job tokens for git over HTTP (`gitlab-ci-token:<job token>`, the payload's repo_url): valid
 * while their job runs, for the job's own project, with the rights of the user the job runs
 * as; refused once the job finished.
 */
export class RunningJobTokens implements JobTokenVerifier {
  constructor(private readonly jobs: Pick<CiJobsStore, 'findByTokenDigest'>) {}

  async verify(token: string): Promise<JobTokenIdentity | null> {
    if (token === '') return null;
    const job = await this.jobs.findByTokenDigest(jobTokenDigest(token));
    if (!job || job.status !== 'running' || job.user_id === null) return null;
    return { projectId: job.project_id, userId: job.user_id };
  }
}
