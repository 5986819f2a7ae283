import { createHash, randomBytes } from 'node:crypto';

/**
 * CI job tokens: a runner receives one with each job it takes (reference §3.4 `token`), and the
 * job uses it until it finishes (trace, updates, artifacts, git over HTTP as `gitlab-ci-token`).
 * Only the digest is stored (ci_jobs.token_digest), so a leaked database holds no live token.
 */
export function newJobToken(): string {
  return randomBytes(15).toString('base64url');
}

/** SHA-256 hex of the token: what `ClaimContext.tokenDigest` and `CiJobsStore.findByTokenDigest` take. */
export function jobTokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
