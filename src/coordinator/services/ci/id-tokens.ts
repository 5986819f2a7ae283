/**
 * The job variables of a job's `id_tokens` (GitLab's `Ci::Build#id_tokens_variables`): one a
 * name, masked and not public, each an RS256 JWT signed with the instance's CI signing key and
 * holding the claims of GitLab's `Gitlab::Ci::JwtV2` (its `sub` of project path, ref type and
 * ref; `exp` the job's timeout after `iat`).
 */
import { randomUUID, sign } from 'node:crypto';
import { environmentTier, type EnvironmentTier } from '../../../ci/environment-tier.ts';
import type { JobIdTokens, EnvironmentDefinition } from '../../../ci/model.ts';
import { expandNested } from '../../../ci/nested-expansion.ts';
import type { JobVariable } from '../../../protocol/job-payload.ts';
import type { CiSigningKey } from './signing-key.ts';

/** GitLab's `Gitlab::Ci::Jwt::NOT_BEFORE_TIME`: a token is good from five seconds before it is made. */
const NOT_BEFORE_SECONDS = 5;

/** What the tokens of one job are made of, read once when the job is handed out. */
export interface IdTokenFacts {
  idTokens: JobIdTokens;
  externalUrl: string;
  /** `environmentTier`: the tier of the job's environment as saved, when it is. */
  job: { id: number; protected: boolean; environment: string | null; environmentDefinition: EnvironmentDefinition | null; environmentTier?: EnvironmentTier };
  /** The job's project and its namespace (the `job_*` claims, `project_visibility`, `ci_config_ref_uri`). */
  project: { id: number; path: string; visibility: string };
  namespace: { id: number; path: string };
  /**
   * The project the code comes from (the `project_*` and `namespace_*` claims, `sub`): a fork's
   * merge request pipeline runs in the target project on the fork's code; absent: the job's.
   */
  source?: { project: { id: number; path: string }; namespace: { id: number; path: string } };
  /** `ref`: the pipeline's ref, or a merge request pipeline's source branch (GitLab's `source_ref`). */
  pipeline: { id: number; source: string; ref: string; tag: boolean; sha: string; configPath: string | null };
  /** `accessLevel`: the user's membership level in the source project by name (`developer`), null for none. */
  user: { id: number; login: string; email: string; accessLevel: string | null } | undefined;
  runnerId: number;
  /** The job's timeout in seconds, as the runner gets it. */
  timeoutSeconds: number;
  /** The job's variables, which each `aud` is expanded from. */
  variables: readonly JobVariable[];
}

export class IdTokens {
  constructor(private readonly signingKey: CiSigningKey) {}

  async variables(facts: IdTokenFacts, now = new Date()): Promise<JobVariable[]> {
    const names = Object.keys(facts.idTokens);
    if (names.length === 0) return [];
    const key = await this.signingKey.key();
    const header = encodeSegment({ kid: key.kid, typ: 'JWT', alg: 'RS256' });
    const claims = commonClaims(facts, Math.floor(now.getTime() / 1000));
    const expand = expander(facts.variables);
    return names.map((name) => {
      const { aud } = facts.idTokens[name]!;
      const payload = encodeSegment({ ...claims, jti: randomUUID(), aud: Array.isArray(aud) ? aud.map(expand) : expand(aud) });
      const signature = sign('sha256', Buffer.from(`${header}.${payload}`), key.privateKey).toString('base64url');
      return { key: name, value: `${header}.${payload}.${signature}`, public: false, masked: true };
    });
  }
}

function commonClaims(facts: IdTokenFacts, iat: number): Record<string, unknown> {
  const { job, project, namespace, pipeline, user } = facts;
  const source = facts.source ?? { project, namespace };
  const refType = pipeline.tag ? 'tag' : 'branch';
  const refPath = `refs/${pipeline.tag ? 'tags' : 'heads'}/${pipeline.ref}`;
  const issuer = facts.externalUrl.replace(/\/+$/, '');
  const server = new URL(issuer);
  const configUrl = `${server.host}${server.pathname.replace(/\/+$/, '')}/${project.path}//${pipeline.configPath ?? '.gitlab-ci.yml'}`;
  return {
    namespace_id: String(source.namespace.id),
    namespace_path: source.namespace.path,
    project_id: String(source.project.id),
    project_path: source.project.path,
    user_id: user ? String(user.id) : '',
    user_login: user?.login ?? null,
    user_email: user?.email ?? null,
    user_access_level: user?.accessLevel ?? null,
    job_project_id: String(project.id),
    job_project_path: project.path,
    job_namespace_id: String(namespace.id),
    job_namespace_path: namespace.path,
    pipeline_id: String(pipeline.id),
    pipeline_source: pipeline.source,
    job_id: String(job.id),
    ref: pipeline.ref,
    ref_type: refType,
    ref_path: refPath,
    ref_protected: String(job.protected),
    ...(job.environment
      ? {
          environment: job.environment,
          environment_protected: 'false',
          deployment_tier: environmentTier(job.environment, job.environmentDefinition?.deploymentTier ?? job.environmentTier),
          environment_action: job.environmentDefinition?.action ?? 'start',
        }
      : {}),
    runner_id: facts.runnerId,
    runner_environment: 'self-hosted',
    sha: pipeline.sha,
    project_visibility: project.visibility,
    ci_config_ref_uri: `${configUrl}@${refPath}`,
    ci_config_sha: pipeline.sha,
    iss: issuer,
    iat,
    nbf: iat - NOT_BEFORE_SECONDS,
    exp: iat + facts.timeoutSeconds,
    sub: `project_path:${source.project.path}:ref_type:${refType}:ref:${pipeline.ref}`,
  };
}

function encodeSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Each `aud` expanded from the job's variables, as GitLab expands them (nested-expansion.ts). */
function expander(variables: readonly JobVariable[]): (text: string) => string {
  const byKey = new Map(variables.map((variable) => [variable.key, variable]));
  return (text) => expandNested(text, (name) => byKey.get(name));
}
