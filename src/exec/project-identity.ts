/**
 * Where `runner exec`'s project sits in its coordinator: at the path its remote has on the
 * server (`git@gitlab.com:group/sub/app.git` is the project `app` in the groups `group/sub`),
 * so that `CI_PROJECT_PATH`, `CI_PROJECT_NAME`, `CI_PROJECT_NAMESPACE` and what derives from
 * them are the server's; without a remote, the working tree's directory name in root's own
 * namespace. Only the URL's path is read (never its user or password).
 */
import path from 'node:path';

export interface ProjectIdentity {
  /** The groups from the top (`['group', 'sub']`); empty for root's own namespace. */
  groups: string[];
  path: string;
}

/** GitLab's deepest group nesting. */
const MAX_GROUP_DEPTH = 20;
/** The project's path when nothing better can be made of the directory's name. */
export const FALLBACK_PROJECT_PATH = 'project';

/** `remoteUrl`: the URL of the `origin` remote (else of the first one), or null. */
export function projectIdentity(remoteUrl: string | null, root: string): ProjectIdentity {
  const remote = remoteUrl === null ? null : remotePath(remoteUrl);
  const segments = remote?.split('/').filter((segment) => segment !== '') ?? [];
  const last = segments.pop();
  const project = last === undefined ? null : pathSegment(last.replace(/\.git$/i, ''));
  const groups = segments.map(pathSegment);
  if (project !== null && groups.length <= MAX_GROUP_DEPTH && groups.every((group): group is string => group !== null)) return { groups, path: project };
  return { groups: [], path: pathSegment(path.basename(remote ?? root).replace(/\.git$/i, '')) ?? FALLBACK_PROJECT_PATH };
}

/** The path part of a remote URL (`scheme://host/path` or scp-like `host:path`); null for a local repository. */
function remotePath(url: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    if (/^file:/i.test(url)) return null;
    try {
      return decodeURIComponent(new URL(url).pathname);
    } catch {
      return null;
    }
  }
  // scp-like syntax: a colon before any slash (a Windows drive letter or a path is not that).
  const scp = /^(?:[^@/:]+@)?[^@/:]{2,}:(.+)$/.exec(url);
  return scp ? scp[1]! : null;
}

/**
 * One path segment as GitLab accepts it (letters, digits, `_`, `-`, `.`; not starting with
 * `-` or `.`, not ending in `.`, `.git` or `.atom`); others become `-`. Null when nothing is left.
 */
function pathSegment(text: string): string | null {
  const cleaned = text
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[-.]+/, '')
    .replace(/(\.git|\.atom)+$/i, '')
    .replace(/[-.]+$/, '');
  return cleaned === '' ? null : cleaned;
}
