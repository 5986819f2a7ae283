import { GantryError } from '../../../../shared/errors.ts';
import type { ProjectRecord, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { TokenScope } from '../../../../storage/types-tokens.ts';
import type { Permissions } from '../../access/permissions.ts';
import type { JobTokenIdentity, JobTokenVerifier } from './job-tokens.ts';

/** Who is talking git to us. */
export interface GitIdentity {
  user: UserRecord | null;
  /** Set when the credential was a CI job token (read-only access, like GitLab). */
  job: JobTokenIdentity | null;
  /** May the credential push (a personal token with `api` or `write_repository`, not a job token)? */
  tokenMayWrite: boolean;
}

export const ANONYMOUS: GitIdentity = { user: null, job: null, tokenMayWrite: false };

const READ_SCOPES: readonly TokenScope[] = ['api', 'read_repository', 'write_repository'];
const WRITE_SCOPES: readonly TokenScope[] = ['api', 'write_repository'];

export const JOB_TOKEN_USER = 'gitlab-ci-token';

/** GitLab's words for git's refusals: the messages of the errors, which git prints to the user. */
export const REFUSALS = {
  unauthorized: 'HTTP Basic: Access denied',
  notFound: "The project you were looking for could not be found or you don't have permission to view it.",
  download: 'You are not allowed to download code from this project.',
  upload: 'You are not allowed to push code to this project.',
  jobUpload: 'You are not allowed to upload code for this project.',
  archived: 'You are not allowed to push code to an archived project.',
} as const;

export interface PersonalTokenResolver {
  /** The owner and scopes of a token that works today (not revoked or expired), else null. */
  usableCredential(token: string): Promise<{ user: UserRecord; token: { scopes: readonly TokenScope[] } } | null>;
}

/** Basic credentials from an Authorization header, or null when absent or not Basic. */
export function basicCredentials(header: string | undefined): { username: string; password: string } | null {
  if (!header) return null;
  const match = /^basic\s+(\S+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Turns credentials into an identity and decides what it may do with a project's repository. */
export class GitAccess {
  constructor(
    private readonly permissions: Permissions,
    private readonly users: UsersStore,
    private readonly personalTokens: PersonalTokenResolver,
    private readonly jobTokens: JobTokenVerifier,
  ) {}

  /** Anonymous without an Authorization header; GANTRY_E_CREDENTIALS_INVALID for credentials that do not check out. */
  async identify(authorization: string | undefined): Promise<GitIdentity> {
    if (authorization === undefined || authorization === '') return ANONYMOUS;
    const credentials = basicCredentials(authorization);
    if (!credentials || credentials.password === '') throw badCredentials();
    if (credentials.username === JOB_TOKEN_USER) {
      const job = await this.jobTokens.verify(credentials.password);
      const user = job ? await this.users.findById(job.userId) : undefined;
      if (job && user && user.state === 'active') return { user, job, tokenMayWrite: false };
      // Not a job's token: GitLab goes on to the other credentials, so `gitlab-ci-token:<personal
      // token>` (semantic-release's and others' default git URL) is that token's owner.
    }
    // The username is not checked against a personal token's owner, as in GitLab.
    const credential = await this.personalTokens.usableCredential(credentials.password);
    // A token without a repository scope does not authenticate git at all, as in GitLab.
    if (!credential || !credential.token.scopes.some((scope) => READ_SCOPES.includes(scope))) {
      throw badCredentials();
    }
    return { user: credential.user, job: null, tokenMayWrite: credential.token.scopes.some((scope) => WRITE_SCOPES.includes(scope)) };
  }

  /**
   * Clone/fetch: public for everyone, internal for signed-in users, private from Reporter.
   * Anonymous callers are asked to sign in for what they cannot read, so git asks for credentials.
   */
  async authorizeRead(project: ProjectRecord | undefined, identity: GitIdentity): Promise<ProjectRecord> {
    const visible = await this.visibleProject(project, identity);
    if (!(await this.permissions.canReadRepository(visible, this.readerOf(visible, identity)))) {
      throw new GantryError('GANTRY_E_ACCESS_DENIED', REFUSALS.download);
    }
    return visible;
  }

  /** Push: Developer and up on a project that is not archived; never with a job token. */
  async authorizeWrite(project: ProjectRecord | undefined, identity: GitIdentity): Promise<ProjectRecord> {
    if (!identity.user) throw signInNeeded();
    const visible = await this.visibleProject(project, identity);
    if (identity.job) throw new GantryError('GANTRY_E_ACCESS_DENIED', REFUSALS.jobUpload);
    if (!identity.tokenMayWrite) throw new GantryError('GANTRY_E_ACCESS_DENIED', REFUSALS.upload);
    if (await this.permissions.canWriteRepository(visible, identity.user)) return visible;
    if (visible.archived && (await this.permissions.canWriteRepository({ ...visible, archived: false }, identity.user))) {
      throw new GantryError('GANTRY_E_PROJECT_ARCHIVED', REFUSALS.archived);
    }
    if (!(await this.permissions.canReadRepository(visible, identity.user))) throw new GantryError('GANTRY_E_ACCESS_DENIED', REFUSALS.download);
    throw new GantryError('GANTRY_E_ACCESS_DENIED', REFUSALS.upload);
  }

  /** A job token reads as its user only on its own project. */
  private readerOf(project: ProjectRecord, identity: GitIdentity): UserRecord | null {
    return identity.job ? this.permissions.jobTokenReader(project, identity.job, identity.user) : identity.user;
  }

  private async visibleProject(project: ProjectRecord | undefined, identity: GitIdentity): Promise<ProjectRecord> {
    if (project && !project.pending_delete && (await this.permissions.canReadProject(project, this.readerOf(project, identity)))) return project;
    throw identity.user ? new GantryError('GANTRY_E_PROJECT_NOT_FOUND', REFUSALS.notFound) : signInNeeded();
  }
}

/** Credentials that do not check out: git asks for others. */
function badCredentials(): GantryError {
  return new GantryError('GANTRY_E_CREDENTIALS_INVALID', REFUSALS.unauthorized);
}

/** Anonymous, where only a signed-in caller may go on: git asks for credentials. */
export function signInNeeded(): GantryError {
  return new GantryError('GANTRY_E_AUTHENTICATION_REQUIRED', REFUSALS.unauthorized);
}
