import type { ProjectRecord, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { Permissions } from '../../access/permissions.ts';
import type { JobTokenVerifier } from '../../repository/git-http/job-tokens.ts';

/** What a job token signs an API request in as. */
export interface JobTokenSignInResult {
  /** The job's user: whose credential it is (throttles, activity). */
  user: UserRecord;
  /** Who the request acts as on the route's project: the job's user on the job's own project, else anonymous (null). */
  actor: UserRecord | null;
}

export interface JobTokenSignInDeps {
  verifier: JobTokenVerifier;
  users: Pick<UsersStore, 'findById'>;
  lookup: Pick<Lookup, 'findProject'>;
  permissions: Pick<Permissions, 'jobTokenReader'>;
}

/**
 * A CI job token on the API routes that take one (GitLab's `job_token_allowed`): valid while
 * its job runs and its user is active; it stands for that user on the job's own project and
 * for no one (anonymous) on any other, as over git.
 */
export class JobTokenSignIn {
  constructor(private readonly deps: JobTokenSignInDeps) {}

  /** Null for a token that is no running job's, or whose user cannot sign in. */
  async signIn(token: string, projectRef: string | undefined): Promise<JobTokenSignInResult | null> {
    const job = await this.deps.verifier.verify(token);
    if (!job) return null;
    const user = await this.deps.users.findById(job.userId);
    if (!user || user.state !== 'active' || user.is_ghost) return null;
    const project: ProjectRecord | undefined = projectRef === undefined || projectRef === '' ? undefined : await this.deps.lookup.findProject(projectRef);
    return { user, actor: project ? this.deps.permissions.jobTokenReader(project, job, user) : null };
  }
}
