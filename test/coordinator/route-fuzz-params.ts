import type { ParamValue } from '../../src/coordinator/http/querystring.ts';
import type { Route } from './route-walk.ts';
import { ed25519Key, type WalkWorld } from './route-walk-world.ts';
import { planningParams, planningPathParams } from './route-walk-planning.ts';

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

/**
 * The query and body parameters each route declares in its schema, from the API's OpenAPI
 * document (`GET /api/v4/groups/:id` → its parameter names): a route reads only these (the
 * schema drops the others), so garbage sent under them reaches the code behind it.
 */
export function declaredParams(document: { paths?: Record<string, Record<string, OpenApiOperation>> }): Map<string, string[]> {
  const declared = new Map<string, string[]>();
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const names = (operation.parameters ?? []).filter((parameter) => parameter.in !== 'path').map((parameter) => parameter.name);
      for (const content of Object.values(operation.requestBody?.content ?? {})) names.push(...Object.keys(content.schema?.properties ?? {}));
      declared.set(`${method.toUpperCase()} ${path.replace(/\{([a-z_]+)\}/g, ':$1')}`, [...new Set(names)]);
    }
  }
  return declared;
}

let fresh = 0;

/**
 * A value that satisfies a required parameter, so a request gets past it to the next one:
 * new names where a record is created, real refs where one is named.
 */
export function plausibleValue(name: string, route: Route, world: WalkWorld): ParamValue | undefined {
  fresh += 1;
  const unique = `fuzz${fresh}`;
  switch (name) {
    case 'name':
    case 'path':
    case 'title':
    case 'username':
      return unique;
    case 'email':
      return `${unique}@example.com`;
    case 'password':
      return 'fuzz-password-1';
    case 'tag_name':
      return `v-${unique}`;
    case 'branch':
      return route.method === 'POST' && route.url.endsWith('/repository/branches') ? unique : 'main';
    case 'ref':
    case 'to':
      return 'main';
    case 'from':
      return world.firstSha;
    case 'refs':
      return ['main', world.branch];
    case 'commit_message':
    case 'note':
    case 'description':
    case 'message':
    case 'value':
    case 'content':
      return 'fuzz';
    case 'actions':
      return [{ action: 'create', file_path: `${unique}.txt`, content: 'fuzz' }];
    case 'user_id':
      return world.userId;
    case 'group_id':
      return world.spareGroupId;
    case 'namespace':
    case 'namespace_id':
      return world.sharedGroupId;
    case 'access_level':
    case 'group_access':
      return 30;
    case 'cron':
      return '0 1 * * *';
    case 'key':
      if (route.url.includes('/variables')) return unique;
      if (!route.url.includes('/gpg_keys')) return ed25519Key(`${unique}@test`);
      return route.url.startsWith('/api/v4/user/') ? world.spareGpgKeys[0] : world.spareGpgKeys[1];
    case 'color':
      return 'red';
    case 'url':
      return `https://example.com/${unique}`;
    case 'scopes':
      return ['api'];
    case 'token':
      // A trigger token to run a pipeline with; a registration token to register with; a runner's own token to verify or unregister.
      if (route.url.endsWith('/trigger/pipeline')) return world.triggerToken;
      if (route.url === '/api/v4/jobs/request') return world.runnerToken;
      if (route.url.startsWith('/api/v4/jobs/')) return world.runningJobToken;
      return route.url === '/api/v4/runners' && route.method === 'POST' ? world.registrationToken : world.runnerToken;
    case 'runner_id':
      return world.spareRunnerId;
    case 'runner_type':
      return 'instance_type';
    case 'system_id':
      return world.runnerSystemId;
    case 'job':
      return world.jobName;
    case 'state':
      // A finished status is never reopened: each request adds one.
      if (route.url === '/api/v4/jobs/:id') return 'running'; // a runner's keep-alive: the job stays running
      return route.url.includes('/statuses/') ? 'success' : undefined;
    default:
      return undefined;
  }
}

/**
 * Parameters a well-formed request needs that no "is missing" answer names (an `at_least_one_of`
 * of many, "params is empty", "Ref is not specified"), or that must name other records than
 * the plausible ones (a cherry-pick onto the branch that lacks the commit).
 */
export function goodParams(route: Route, world: WalkWorld): Record<string, ParamValue> {
  const good: Record<string, Record<string, ParamValue>> = {
    'PUT /api/v4/application/settings': { after_sign_up_text: 'fuzz' },
    'PUT /api/v4/projects/:id': { description: 'fuzz' },
    'PUT /api/v4/projects/:id/releases/:tag_name': { description: 'fuzz' },
    'POST /api/v4/projects/:id/releases': { ref: 'main' },
    'POST /api/v4/projects/:id/repository/commits/:sha/cherry_pick': { branch: world.branch },
    'GET /api/v4/projects/:id/repository/merge_base': { refs: ['main', world.branch] },
    // A runner's keep-alive: the job stays running for the requests after it.
    'PUT /api/v4/jobs/:id': { token: world.runningJobToken, state: 'running' },
    // A job's token: the runner protocol's artifact download answers 403 without one, never "is missing".
    'GET /api/v4/jobs/:id/artifacts': { token: world.runningJobToken },
    // The walk names emails-on-push (route-walk.ts): its one required setting.
    'PUT /api/v4/projects/:id/services/:slug': { recipients: 'walk@example.com' },
    'PUT /api/v4/projects/:id/integrations/:slug': { recipients: 'walk@example.com' },
    'GET /api/v4/keys': { fingerprint: world.userKeyFingerprint },
    'POST /api/v4/projects/:id/hooks': { url: 'https://hooks.example.com/fuzz' },
    'POST /api/v4/groups/:id/hooks': { url: 'https://hooks.example.com/fuzz' },
    'POST /api/v4/hooks': { url: 'https://hooks.example.com/fuzz' },
    // The walked group is top-level: moving it "to the top level" (no group_id) is refused.
    'POST /api/v4/groups/:id/transfer': { group_id: world.spareGroupId },
    ...planningParams(world),
  };
  return { ...good[`${route.method} ${route.url}`] };
}

/** Path parameters a well-formed request needs other than the world's records (a file to create, a label of its own to delete). */
export function goodPathParams(route: Route, world: WalkWorld): Record<string, string> {
  if (route.method === 'POST' && route.url.endsWith('/repository/files/:file_path')) return { file_path: 'fuzz-created.txt' };
  return planningPathParams(route, world);
}

/** The parameters a 400 names missing (`x is missing`, `a, b are missing, at least one ...`). */
export function missingNames(body: unknown): string[] {
  const error = (body as { error?: unknown } | undefined)?.error;
  if (typeof error !== 'string') return [];
  const atLeastOne = /^(.+) are missing, at least one parameter must be provided$/.exec(error);
  if (atLeastOne) return atLeastOne[1].split(', ');
  return [...error.matchAll(/(?:^|, )([a-z_]+) is missing/g)].map((match) => match[1]);
}

/** `name[]=a&name[]=b` and `name=a` for a query string. */
export function encodeQuery(params: Record<string, ParamValue>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (Array.isArray(value)) for (const item of value) parts.push(`${name}[]=${encodeURIComponent(String(item))}`);
    else parts.push(`${name}=${encodeURIComponent(String(value))}`);
  }
  return parts.join('&');
}

/** Headers a runner sends that the walk cannot express as parameters (the trace PATCH's job token and offset). */
export function protocolHeaders(route: Route, world: WalkWorld): Record<string, string> {
  if (route.method === 'PATCH' && route.url === '/api/v4/jobs/:id/trace') return { 'job-token': world.runningJobToken, 'content-range': '0-0' };
  // The job's own record: answered to its job token only.
  if (route.method === 'GET' && route.url === '/api/v4/job') return { 'job-token': world.runningJobToken };
  return {};
}
