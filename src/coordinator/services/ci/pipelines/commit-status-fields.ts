import { isIP } from 'node:net';
import { lengthErrors, type FieldLimits } from '../../field-limits.ts';

/**
 * GitLab's CommitStatus bounds `ref`, `target_url` and `description` at 255 characters; `name`
 * fills a 255-character column (`ci_builds.name`), so a longer one is refused here instead of
 * failing in the database.
 */
export const COMMIT_STATUS_LIMITS = { name: 255, ref: 255, target_url: 255, description: 255 } as const satisfies FieldLimits;

/** The fields of `POST /projects/:id/statuses/:sha` a client writes freely. */
export interface CommitStatusFields {
  name: string;
  ref?: string;
  targetUrl?: string;
  description?: string;
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
/** Ruby's String#strip: ASCII whitespace and NUL at either end. */
const EDGE_WHITESPACE = /^[\t\n\v\f\r \0]+|[\t\n\v\f\r \0]+$/g;

/** A target URL as GitLab stores it: without surrounding whitespace. */
export function normalizedTargetUrl(targetUrl: string): string {
  return targetUrl.replace(EDGE_WHITESPACE, '');
}

/**
 * `{field: [reasons]}` for each field GitLab's GenericCommitStatus would refuse: lengths, and a
 * target URL that is blank or not http(s) (its AddressableUrlValidator: no `javascript:`,
 * `data:` or relative URL is ever shown as a link). Empty when all is well.
 */
export function commitStatusFieldErrors(fields: CommitStatusFields): Record<string, string[]> {
  const targetUrl = fields.targetUrl === undefined ? undefined : normalizedTargetUrl(fields.targetUrl);
  const errors = lengthErrors(COMMIT_STATUS_LIMITS, { name: fields.name, ref: fields.ref, target_url: targetUrl, description: fields.description });
  const urlProblem = targetUrl === undefined ? null : targetUrlProblem(targetUrl);
  if (urlProblem) errors.target_url = [...(errors.target_url ?? []), urlProblem];
  return errors;
}

/** GitLab's wording for a target URL it refuses, or null (its URL blocker, with local addresses allowed and no DNS). */
function targetUrlProblem(url: string): string | null {
  if (url === '') return 'must be a valid URL';
  if (/[\r\n]|%0[ad]/i.test(url)) return 'is blocked: URI is invalid';
  const scheme = SCHEME.exec(url)?.[1];
  if (scheme !== 'http' && scheme !== 'https') return 'is blocked: Only allowed schemes are http, https';
  const host = hostOf(url.slice(scheme.length + 1));
  if (host !== '' && isIP(host) === 0 && !/^[\p{L}\p{N}]/u.test(host)) return 'is blocked: Hostname or IP address invalid';
  return null;
}

/** The host of `//user@host:port/path` ("" without an authority), IPv6 brackets removed. */
function hostOf(rest: string): string {
  if (!rest.startsWith('//')) return '';
  const authority = rest.slice(2).split(/[/?#]/, 1)[0] ?? '';
  const hostAndPort = authority.slice(authority.lastIndexOf('@') + 1);
  if (hostAndPort.startsWith('[')) return hostAndPort.slice(1, hostAndPort.indexOf(']') === -1 ? undefined : hostAndPort.indexOf(']'));
  const colon = hostAndPort.indexOf(':');
  return colon === -1 ? hostAndPort : hostAndPort.slice(0, colon);
}
