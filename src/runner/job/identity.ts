/** Who runs the job (header lines, variables, user agent) and small naming rules. */

export interface RunnerIdentity {
  /** `[[runners]] name` */
  name: string;
  /** First 8 characters of the runner token. */
  shortToken: string;
  productName: string;
  version: string;
  revision: string;
  /** `linux/amd64` */
  arch: string;
  userAgent: string;
}

export function shortToken(token: string): string {
  return token.slice(0, 8);
}

/**
 * `<namespace>/<project>` from the URL path of `repo_url` (minus `.git`), or
 * `project-<id>` for a URL without a host (reference §8.4).
 */
export function projectPathOf(repoUrl: string, projectId: number): string {
  const fallback = `project-${projectId}`;
  let url: URL;
  try {
    url = new URL(repoUrl);
  } catch {
    return fallback;
  }
  if (!url.host) return fallback;
  const parts = decodeURIComponent(url.pathname)
    .replace(/\.git\/?$/, '')
    .split('/')
    .filter((part) => part !== '' && part !== '.');
  if (parts.length === 0 || parts.some((part) => part === '..' || part.includes('\\'))) return fallback;
  return parts.join('/');
}

/** Go's time.Duration formatting of whole seconds: `1h0m0s`, `1m30s`, `5s`. */
export function goDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = whole % 60;
  if (hours > 0) return `${hours}h${minutes}m${rest}s`;
  if (minutes > 0) return `${minutes}m${rest}s`;
  return `${rest}s`;
}
