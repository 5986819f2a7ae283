export type GitService = 'git-upload-pack' | 'git-receive-pack';

/** What a URL below the site root means to git over HTTP. */
export type GitPath =
  /** A smart-protocol request for a project's repository. */
  | { kind: 'smart'; projectPath: string; pathInfo: '/info/refs' | `/${GitService}`; service: GitService | null }
  /** `group/project/info/refs` without `.git`: GitLab redirects to the `.git` URL. */
  | { kind: 'redirect'; location: string }
  /** Dumb-protocol files and other paths inside `<project>.git/`: never served. */
  | { kind: 'unsupported' };

const SMART = /^\/(.+?)(\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)$/;
const INSIDE_REPOSITORY = /^\/(.+?)\.git\/./;

/**
 * Classifies a request path (already percent-decoded, without the query string).
 * Returns null for anything that is not git's business (the site's 404 applies).
 */
export function classifyGitPath(method: string, urlPath: string, queryString: string): GitPath | null {
  if (urlPath.startsWith('/api/')) return null;
  const match = SMART.exec(urlPath);
  if (match) {
    const [, projectPath, dotGit, endpoint] = match as unknown as [string, string, string | undefined, string];
    if (endpoint === 'info/refs') {
      if (method !== 'GET' && method !== 'HEAD') return { kind: 'unsupported' };
      if (!dotGit) return { kind: 'redirect', location: `/${encodePath(projectPath)}.git/info/refs${queryString ? `?${queryString}` : ''}` };
      const service = new URLSearchParams(queryString).get('service');
      return { kind: 'smart', projectPath, pathInfo: '/info/refs', service: isGitService(service) ? service : null };
    }
    if (method !== 'POST') return { kind: 'unsupported' };
    const service = endpoint as GitService;
    return { kind: 'smart', projectPath, pathInfo: `/${service}`, service };
  }
  if (INSIDE_REPOSITORY.test(urlPath)) return { kind: 'unsupported' };
  return null;
}

function isGitService(value: string | null): value is GitService {
  return value === 'git-upload-pack' || value === 'git-receive-pack';
}

function encodePath(projectPath: string): string {
  return projectPath.split('/').map(encodeURIComponent).join('/');
}
