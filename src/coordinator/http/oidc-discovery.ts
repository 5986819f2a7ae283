/**
 * OIDC discovery of the instance's CI ID tokens, at the coordinator's root as GitLab serves
 * them, without sign-in: `/.well-known/openid-configuration` names the issuer and where its keys
 * are, `/oauth/discovery/keys` lists them (the public half of the CI signing key), so a relying
 * party (Vault, a cloud's workload identity) can check a job's `id_tokens`.
 */
import type { FastifyInstance } from 'fastify';
import type { CiSigningKey } from '../services/ci/signing-key.ts';

/** The claims of a CI ID token (GitLab lists those of its OAuth ID tokens; Gantry signs only CI ones). */
const CLAIMS_SUPPORTED = [
  'iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti', 'namespace_id', 'namespace_path', 'project_id', 'project_path',
  'user_id', 'user_login', 'user_email', 'pipeline_id', 'pipeline_source', 'job_id', 'ref', 'ref_type', 'ref_path',
  'ref_protected', 'environment', 'environment_protected', 'deployment_tier', 'environment_action', 'runner_id',
  'runner_environment', 'sha', 'project_visibility', 'ci_config_ref_uri', 'ci_config_sha',
];

export function registerOidcDiscovery(instance: FastifyInstance, deps: { externalUrl: string; signingKey: CiSigningKey }): void {
  const issuer = deps.externalUrl.replace(/\/+$/, '');

  instance.get('/.well-known/openid-configuration', { schema: { hide: true } }, async (_request, reply) =>
    reply.send({
      issuer,
      jwks_uri: `${issuer}/oauth/discovery/keys`,
      // Tokens are only handed to jobs: no authorization flow, so no other response type.
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      claim_types_supported: ['normal'],
      claims_supported: CLAIMS_SUPPORTED,
    }),
  );

  instance.get('/oauth/discovery/keys', { schema: { hide: true } }, async (_request, reply) => {
    const { jwk } = await deps.signingKey.key();
    return reply.header('cache-control', 'max-age=86400, public, must-revalidate, no-transform').send({ keys: [jwk] });
  });
}
