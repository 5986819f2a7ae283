/**
 * The URL rewrites gitlab-runner gives `git submodule update` (its GetURLInsteadOfArgs): the
 * instance's own URL (`clone_url`, else CI_SERVER_URL) with the job token in it instead of the
 * plain one, so a submodule with an absolute URL on the same instance is fetched with the job's
 * credentials; and with GIT_SUBMODULE_FORCE_HTTPS its SSH forms (`git@host:`, `ssh://git@host`,
 * `ssh://git@host:port` for CI_SERVER_SHELL_SSH_PORT) too.
 */
export interface InsteadOfSource {
  cloneUrl: string | undefined;
  serverUrl: string | undefined;
  jobToken: string;
  forceHttps: boolean;
  /** CI_SERVER_SHELL_SSH_HOST, else CI_SERVER_HOST. */
  sshHost: string | undefined;
  /** CI_SERVER_SHELL_SSH_PORT. */
  sshPort: string | undefined;
}

/** `[replacement, original]` pairs for `git -c url.<replacement>.insteadOf=<original>`, none when the base URL is not http(s). */
export function submoduleInsteadOf(source: InsteadOfSource): Array<[string, string]> {
  const base = baseUrl(source.cloneUrl) ?? baseUrl(source.serverUrl);
  if (base === null) return [];
  const withAuth = new URL(base);
  withAuth.username = 'gitlab-ci-token';
  withAuth.password = source.jobToken;
  const authenticated = withAuth.toString().replace(/\/+$/, '');
  const pairs: Array<[string, string]> = [[authenticated, base]];
  const host = source.sshHost ?? '';
  if (!source.forceHttps || host === '') return pairs;
  if (!source.sshPort || source.sshPort === '22') {
    pairs.push([`${authenticated}/`, `git@${host}:`], [authenticated, `ssh://git@${host}`]);
  } else {
    pairs.push([authenticated, `ssh://git@${host}:${source.sshPort}`]);
  }
  return pairs;
}

/** The URL without a trailing slash when it is an http(s) one (gitlab-runner's prefix check), else null. */
function baseUrl(value: string | undefined): string | null {
  const trimmed = (value ?? '').trim().replace(/\/+$/, '');
  if (!/^https?:\/\//i.test(trimmed)) return null;
  try {
    new URL(trimmed);
  } catch {
    return null;
  }
  return trimmed;
}

/** The pairs as git's `-c` options. */
export function insteadOfOptions(pairs: ReadonlyArray<readonly [string, string]>): string[] {
  return pairs.flatMap(([replacement, original]) => ['-c', `url.${replacement}.insteadOf=${original}`]);
}
