/** A page under a project's path: `/group/sub/project/-/pipelines/12` and the like. */
export type ProjectPage =
  | { kind: 'pipelines' | 'jobs'; project: string }
  | { kind: 'pipeline'; project: string; pipelineId: number }
  | { kind: 'pipeline-action'; project: string; pipelineId: number; action: 'retry' | 'cancel' }
  | { kind: 'merge-requests' | 'issues'; project: string }
  | { kind: 'merge-request'; project: string; iid: number; tab: 'overview' | 'pipelines' | 'diffs' }
  | { kind: 'issue'; project: string; iid: number }
  | { kind: 'project'; project: string }
  | { kind: 'tree' | 'blob' | 'raw'; project: string; refAndPath: string }
  | { kind: 'commit'; project: string; sha: string }
  | { kind: 'releases' | 'tags' | 'milestones'; project: string }
  | { kind: 'release' | 'tag'; project: string; tagName: string }
  | { kind: 'milestone'; project: string; iid: number }
  | { kind: 'commits'; project: string; refAndPath: string }
  | { kind: 'compare'; project: string; spec: string }
  | { kind: 'branches'; project: string }
  /** One path segment: a user's profile or a top-level group (user-pages.ts). */
  | { kind: 'namespace'; path: string };

/** GitLab's reserved top-level paths: never a namespace, so never a project page (`/api/v4/...` stays JSON). */
const RESERVED_TOP_LEVEL = new Set([
  '-', '.well-known', 'admin', 'api', 'assets', 'dashboard', 'explore', 'files', 'groups', 'help', 'import', 'jwt', 'login',
  'new', 'oauth', 'profile', 'projects', 'public', 'robots.txt', 'search', 'sent_notifications', 'snippets', 'u', 'uploads', 'users',
]);

const ID = '(\\d{1,15})';
const GET_PAGES: ReadonlyArray<[RegExp, (match: RegExpExecArray, project: string) => ProjectPage]> = [
  [/^pipelines\/?$/, (_match, project) => ({ kind: 'pipelines', project })],
  [/^jobs\/?$/, (_match, project) => ({ kind: 'jobs', project })],
  [new RegExp(`^pipelines/${ID}/?$`), (match, project) => ({ kind: 'pipeline', project, pipelineId: Number(match[1]) })],
  [/^(tree|blob|raw)\/(.+?)\/?$/, (match, project) => ({ kind: match[1] as 'tree' | 'blob' | 'raw', project, refAndPath: match[2]! })],
  [/^commit\/([0-9a-fA-F]{7,64})$/, (match, project) => ({ kind: 'commit', project, sha: match[1]! })],
  [/^(merge_requests|issues)\/?$/, (match, project) => ({ kind: match[1] === 'issues' ? 'issues' : 'merge-requests', project })],
  [new RegExp(`^merge_requests/${ID}(?:/(pipelines|diffs))?/?$`), (match, project) => ({ kind: 'merge-request', project, iid: Number(match[1]), tab: (match[2] ?? 'overview') as 'overview' | 'pipelines' | 'diffs' })],
  [new RegExp(`^issues/${ID}/?$`), (match, project) => ({ kind: 'issue', project, iid: Number(match[1]) })],
  [/^(releases|tags|milestones)\/?$/, (match, project) => ({ kind: match[1] as 'releases' | 'tags' | 'milestones', project })],
  // A tag's name may hold slashes; `/-/releases/:tag/downloads/...` is a download, served before the pages.
  [/^(releases|tags)\/(.+?)\/?$/, (match, project) => ({ kind: match[1] === 'tags' ? 'tag' : 'release', project, tagName: match[2]! })],
  [new RegExp(`^milestones/${ID}/?$`), (match, project) => ({ kind: 'milestone', project, iid: Number(match[1]) })],
  [/^commits\/(.+?)\/?$/, (match, project) => ({ kind: 'commits', project, refAndPath: match[1]! })],
  [/^compare\/(.+)$/, (match, project) => ({ kind: 'compare', project, spec: match[1]! })],
  [/^branches\/?$/, (_match, project) => ({ kind: 'branches', project })],
];
/** A project's own page: two or more path segments, none of them git's or a file's (`.git`, `.atom`, `.json`). */
/** A top-level namespace's own page: one path segment. */
const NAMESPACE_PATH = /^\/([A-Za-z0-9_][A-Za-z0-9_.-]*)\/?$/;
const PROJECT_PATH = /^\/([A-Za-z0-9_][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_][A-Za-z0-9_.-]*)+)\/?$/;
const POST_PAGES: ReadonlyArray<[RegExp, (match: RegExpExecArray, project: string) => ProjectPage]> = [
  [new RegExp(`^pipelines/${ID}/(retry|cancel)$`), (match, project) => ({ kind: 'pipeline-action', project, pipelineId: Number(match[1]), action: match[2] as 'retry' | 'cancel' })],
];

/** The project page at `urlPath` (decoded, no query), or null when none lives there. */
export function classifyProjectPage(requestMethod: string, urlPath: string): ProjectPage | null {
  // HEAD is answered as GET (fastify sends no body).
  const method = requestMethod === 'HEAD' ? 'GET' : requestMethod;
  const at = urlPath.indexOf('/-/');
  if (at < 0) return method === 'GET' ? projectItself(urlPath) : null;
  if (at === 0) return null;
  const project = urlPath.slice(1, at);
  const segments = project.split('/');
  if (segments.length < 2 || segments.some((segment) => segment === '') || RESERVED_TOP_LEVEL.has(segments[0]!.toLowerCase())) return null;
  const rest = urlPath.slice(at + 3);
  const table = method === 'GET' ? GET_PAGES : method === 'POST' ? POST_PAGES : [];
  for (const [pattern, build] of table) {
    const match = pattern.exec(rest);
    if (match) return build(match, project);
  }
  return null;
}

function projectItself(urlPath: string): ProjectPage | null {
  const namespace = NAMESPACE_PATH.exec(urlPath);
  if (namespace) return /\.(git|atom|json|svg|png|ico|txt|xml)$/i.test(namespace[1]!) || RESERVED_TOP_LEVEL.has(namespace[1]!.toLowerCase()) ? null : { kind: 'namespace', path: namespace[1]! };
  const match = PROJECT_PATH.exec(urlPath);
  if (!match || /\.(git|atom|json|svg|png)$/i.test(match[1]!)) return null;
  const project = match[1]!;
  return RESERVED_TOP_LEVEL.has(project.split('/')[0]!.toLowerCase()) ? null : { kind: 'project', project };
}
