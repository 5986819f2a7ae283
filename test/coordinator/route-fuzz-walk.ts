import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { ParamValue } from '../../src/coordinator/http/querystring.ts';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { JSON_VALUES, MALFORMED_BODIES, NAMED_BODIES, PATH_VALUES, QUERY_VALUES, type BodyShape } from './route-fuzz-inputs.ts';
import { declaredParams, encodeQuery, goodParams, goodPathParams, missingNames, plausibleValue, protocolHeaders } from './route-fuzz-params.ts';
import { apiRoutes, makeWalkWorld, pathParameters, samplePath, type Route, type WalkWorld } from './route-walk.ts';
import { PLANNING_ROUTES_WITHOUT_RECORDS } from './route-walk-planning.ts';

/**
 * Every route of the route table, walked with malformed path parameters, query parameters
 * and bodies (GitLab's v4 API must answer a caller's mistake with a 4xx and a GitLab-shaped
 * body, never a 5xx), as an administrator, a normal user (a developer of the project) and
 * anonymously. Each route gets every malformation class at least once, spread over the
 * parameter names its schema declares, with the other parameters naming real records.
 * The table is walked in four parts, each a test file with a coordinator and records of its
 * own (route-fuzz-reads.test.ts, route-fuzz-writes.test.ts, route-fuzz-writes-code.test.ts,
 * route-fuzz-writes-planning.test.ts),
 * so they run side by side; a part steps its rotations over the other parts' routes as if it
 * had walked them, so each route gets the very requests it would get in one walk.
 * FUZZ_DEBUG=1 prints each route's walk (its wall and CPU milliseconds, requests, bytes answered,
 * well-formed answer, names read and statuses) and each failure as it happens; FUZZ_DEBUG=requests
 * prints every request with its time and status.
 */

/** One part of the route table and what its walk must have covered. */
export interface WalkPart {
  title: string;
  includes(route: Route): boolean;
  minRoutes: number;
  minRequests: number;
  /** Parameter names some route of the part must have been seen reading, and how many names in all. */
  namesRead: readonly string[];
  minNames: number;
}

interface Caller {
  name: string;
  token: string | null;
}

interface Probe {
  kind: string;
  path: string;
  query: string;
  body?: BodyShape;
}

interface RouteOutcome {
  route: Route;
  /** The answer to a well-formed request naming real records, as administrator. */
  good: number;
  /** Statuses of administrator requests whose path named real records. */
  realPathStatuses: number[];
  names: string[];
}

const RUNNER_TOKEN_RESET = 'POST /api/v4/runners/reset_authentication_token';

/** Writes that change what later routes see run last, in this order (each undone by the next). */
const DISRUPTIVE = [
  'POST /api/v4/projects/:id/archive',
  'POST /api/v4/projects/:id/unarchive',
  'POST /api/v4/users/:id/block',
  'POST /api/v4/users/:id/unblock',
  'PUT /api/v4/projects/:id/transfer',
  'POST /api/v4/groups/:id/projects/:project_id',
  // Moves the walked group under the spare one: its full path changes for what follows.
  'POST /api/v4/groups/:id/transfer',
  // Replaces the runner token the runner protocol's routes use: a new one is fetched after it.
  RUNNER_TOKEN_RESET,
];
/** Deletions of containers go after the deletions of what they contain. */
const LAST_DELETES = ['/api/v4/personal_access_tokens/:id', '/api/v4/projects/:id', '/api/v4/groups/:id', '/api/v4/users/:id'];

/**
 * Updates that may rename the record they walk (`path=1e309`): its names are put back after
 * the route's walk, or later path probes (`/groups/1e309`) would reach it under the new name.
 */
const RENAMING: Record<string, readonly string[]> = {
  'PUT /api/v4/groups/:id': ['name', 'path'],
  // ci_config_path and jobs_enabled too: the pipeline routes walked later read them.
  'PUT /api/v4/projects/:id': ['name', 'path', 'ci_config_path', 'jobs_enabled'],
  'PUT /api/v4/users/:id': ['username', 'name', 'email'],
};

/** How many path malformations a container parameter (`:id` before the route's own) gets per route. */
const CONTAINER_WINDOW = 7;

const keyOf = (route: Route) => `${route.method} ${route.url}`;

/**
 * CPU milliseconds used so far by this process and the children it waited for (git, gpg): what
 * a route costs the machine, which its wall time on a loaded machine does not tell.
 */
function cpuMs(): number {
  const own = process.cpuUsage();
  let children = 0;
  try {
    // /proc/self/stat: after the command name, fields 16 and 17 are the waited-for children's user and system ticks.
    const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ');
    children = ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    // Not Linux: the process's own time only.
  }
  return (own.user + own.system) / 1000 + children;
}

/**
 * The areas of a project (`/projects/:id/<area>`) whose writes commit, tag or create
 * pipelines: the write routes of route-fuzz-writes-code.test.ts.
 */
const CODE_AREAS = new Set(['repository', 'releases', 'protected_branches', 'protected_tags', 'statuses', 'pipeline', 'pipelines', 'jobs', 'trigger', 'ref', 'ci', 'fork']);

/**
 * The areas of a project's planning: the write routes of route-fuzz-writes-planning.test.ts
 * (a third of the writes' CPU, which evens out the three write parts).
 */
const PLANNING_AREAS = new Set(['issues', 'merge_requests', 'labels', 'milestones']);

const writesInArea = (route: Route, areas: ReadonlySet<string>): boolean => {
  const area = /^\/api\/v4\/projects\/:id\/([^/]+)/.exec(route.url)?.[1];
  return route.method !== 'GET' && area !== undefined && areas.has(area);
};

/** Whether `route` writes in one of the {@link CODE_AREAS}. */
export const writesCode = (route: Route): boolean => writesInArea(route, CODE_AREAS);

/** Whether `route` writes in one of the {@link PLANNING_AREAS}. */
export const writesPlanning = (route: Route): boolean => writesInArea(route, PLANNING_AREAS);

/** Reads first, then writes, then the disruptive writes, then deletions, innermost first. */
function walkOrder(routes: Route[]): Route[] {
  const rank = (route: Route): number[] => {
    if (route.method === 'GET') return [0];
    if (route.method !== 'DELETE') return DISRUPTIVE.includes(keyOf(route)) ? [2, DISRUPTIVE.indexOf(keyOf(route))] : [1];
    const last = LAST_DELETES.indexOf(route.url);
    return last >= 0 ? [4, last] : [3, -route.url.split('/').length];
  };
  const compare = (a: number[], b: number[]) => a[0] - b[0] || (a[1] ?? 0) - (b[1] ?? 0);
  return [...routes].sort((a, b) => compare(rank(a), rank(b)));
}

/** GitLab's error bodies: `{"message": "..." | {field: [...]}}` or `{"error": "..."}`. */
function isGitlabError(response: LightMyRequestResponse): boolean {
  if (!String(response.headers['content-type'] ?? '').startsWith('application/json')) return false;
  try {
    const body: unknown = JSON.parse(response.body);
    if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
    const { message, error } = body as { message?: unknown; error?: unknown };
    return typeof error === 'string' || typeof message === 'string' || (typeof message === 'object' && message !== null);
  } catch {
    return false;
  }
}

function jsonObject(entries: Record<string, ParamValue>, raw: Record<string, string> = {}): string {
  const parts = Object.entries(entries).map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`);
  for (const [name, text] of Object.entries(raw)) parts.push(`${JSON.stringify(name)}:${text}`);
  return `{${parts.join(',')}}`;
}

function without(params: Record<string, ParamValue>, name: string): Record<string, ParamValue> {
  const { [name]: _dropped, ...rest } = params;
  return rest;
}

const joinQuery = (...parts: string[]) => parts.filter((part) => part !== '').join('&');

/**
 * Writes whose well-formed request is a multipart upload with a job token in a header, which
 * the walk's JSON and form probes never make: their own tests upload for real (they still get
 * every malformed probe here).
 */
// Their well-formed request is a multipart file, which the walk's JSON bodies never are; the named tests upload one.
const MULTIPART_UPLOADS = new Set([
  'POST /api/v4/jobs/:id/artifacts', // test/coordinator/runner-artifacts.test.ts
  'POST /api/v4/projects/:id/uploads', // test/coordinator/uploads.test.ts
]);

// Their well-formed request delivers to the hook's URL, which the walk's world points at a host
// that does not resolve here (the walk sends nothing out): the named test delivers to a receiver.
const OUTBOUND_CALLS = new Set([
  'POST /api/v4/projects/:id/hooks/:hook_id/test/:trigger', // test/coordinator/hooks-test-call.test.ts
  'POST /api/v4/hooks/:id', // test/coordinator/hooks-system.test.ts
  'POST /api/v4/groups/:id/hooks/:hook_id/test/:trigger', // test/coordinator/hooks-system-groups.test.ts
]);

export function describeRouteFuzz(part: WalkPart): void {
  describe(part.title, () => {
    let gantry: TestCoordinator;
    let world: WalkWorld;
    const failures: string[] = [];
    const outcomes: RouteOutcome[] = [];
    let requests = 0;
    let answeredBytes = 0;
    /** The part's routes in the route table (FUZZ_ROUTES walks fewer). */
    let partRoutes = 0;

    before(async () => {
      // The walk's running job hears nothing from a runner for minutes: the hand-out sweep (2 min)
      // would fail it and the job routes' writes would answer 403 to the rest of the walk.
      gantry = await startTestCoordinator({ extra: { ci: { runnerJobs: { stale: { handOutAckMs: 24 * 60 * 60 * 1000 } } } } });
      world = await makeWalkWorld(gantry);
      const declared = declaredParams((await gantry.api('GET', '/openapi.json')).json);
      const admin: Caller = { name: 'administrator', token: ROOT_TOKEN };
      const others: Caller[] = [
        { name: 'normal user', token: world.normal.token },
        { name: 'anonymous', token: null },
      ];

      const send = async (route: Route, probe: Probe, caller: Caller): Promise<LightMyRequestResponse> => {
        requests += 1;
        const sentAt = Date.now();
        const url = `/api/v4${probe.path}${probe.query === '' ? '' : `?${probe.query}`}`;
        const headers: Record<string, string> = caller.token === null ? {} : { 'private-token': caller.token };
        if (probe.body) headers['content-type'] = probe.body.contentType;
        Object.assign(headers, protocolHeaders(route, world));
        const response = await gantry.coordinator.app.inject({ method: route.method as 'GET', url, headers, payload: probe.body?.payload });
        answeredBytes += response.rawPayload.length;
        if (process.env.FUZZ_DEBUG === 'requests') console.log(`${Date.now() - sentAt}ms ${response.statusCode} ${route.method} ${url.slice(0, 150)} [${probe.kind}] ${caller.name}`);
        const problem = response.statusCode >= 500 ? 'server error' : response.statusCode >= 400 && response.statusCode !== 429 && !isGitlabError(response) ? 'not a GitLab error body' : undefined;
        if (problem) {
          if (process.env.FUZZ_DEBUG) console.log(`FAIL ${problem} ${route.method} ${route.url} [${probe.kind}] ${caller.name} ${response.statusCode}`);
          failures.push(`${problem}: ${route.method} ${url.slice(0, 200)} [${probe.kind}${probe.body ? `, ${probe.body.contentType}` : ''}, ${caller.name}] → ${response.statusCode} ${response.body.slice(0, 300)}`);
        }
        return response;
      };

      const snapshot = async (path: string, fields: readonly string[]): Promise<Record<string, ParamValue>> => {
        const { json } = await gantry.api('GET', path);
        // A null text field (ci_config_path) is restored as '' (its empty value): PUT reads null as absent.
        return Object.fromEntries(fields.map((field) => [field, (json[field] ?? '') as ParamValue]));
      };
      const restore = async (path: string, identity: Record<string, ParamValue>): Promise<void> => {
        const response = await gantry.api('PUT', path, { body: identity });
        if (response.status !== 200) throw new Error(`restoring ${path}: ${response.status} ${response.text}`);
      };

      let rotation = 0;
      let windowStart = 0;
      let walked = 0;
      partRoutes = apiRoutes(gantry).filter((route) => part.includes(route)).length;
      // FUZZ_ROUTES=<regex> walks only the matching routes (for debugging: the coverage checks then fail).
      const only = process.env.FUZZ_ROUTES === undefined ? undefined : new RegExp(process.env.FUZZ_ROUTES);
      for (const route of walkOrder(apiRoutes(gantry)).filter((candidate) => !only || only.test(keyOf(candidate)))) {
        if (!part.includes(route)) {
          windowStart = (windowStart + CONTAINER_WINDOW) % PATH_VALUES.length;
          walked += 1;
          continue;
        }
        const started = Date.now();
        const cpuBefore = process.env.FUZZ_DEBUG ? cpuMs() : 0;
        const sentBefore = requests;
        const answeredBefore = answeredBytes;
        const isRead = route.method === 'GET';
        const good = goodParams(route, world);
        const names = new Set<string>(['sudo', ...(declared.get(keyOf(route)) ?? [])]);
        const outcome: RouteOutcome = { route, good: 0, realPathStatuses: [], names: [] };
        const realPath = samplePath(route.url, world, goodPathParams(route, world));
        const goodProbe = (kind: string): Probe =>
          isRead ? { kind, path: realPath, query: encodeQuery(good) } : { kind, path: realPath, query: '', body: { kind: 'JSON', contentType: 'application/json', payload: jsonObject(good) } };

        const probe = async (made: Probe, everyone: boolean): Promise<void> => {
          const response = await send(route, made, admin);
          // Other paths may reach other routes (an empty last segment reaches the parent's).
          if (made.path !== realPath) return;
          outcome.realPathStatuses.push(response.statusCode);
          if (everyone) {
            rotation += 1;
            await send(route, made, others[rotation % others.length]);
          }
        };

        // A well-formed request, completed parameter by parameter while the answer names one missing.
        const discover = async (): Promise<void> => {
          for (let attempt = 0; attempt < 8; attempt += 1) {
            const response = await send(route, goodProbe('well-formed'), admin);
            outcome.good = response.statusCode;
            outcome.realPathStatuses.push(response.statusCode);
            if (response.statusCode !== 400) return;
            const missing = missingNames(JSON.parse(response.body)).find((name) => good[name] === undefined && plausibleValue(name, route, world) !== undefined);
            if (missing === undefined) return;
            good[missing] = plausibleValue(missing, route, world) as ParamValue;
          }
        };

        const renamed = RENAMING[keyOf(route)];
        const identity = renamed ? await snapshot(realPath, renamed) : undefined;

        // A deletion's well-formed request deletes: it comes last.
        if (route.method !== 'DELETE') await discover();

        // The route's own (last) path parameter gets every malformation; the parameters naming its
        // containers (`:id`, shared by many routes) a window of them, moving from route to route.
        const parameters = pathParameters(route.url);
        for (const [parameterIndex, parameter] of parameters.entries()) {
          const own = parameterIndex === parameters.length - 1;
          for (const [index, value] of PATH_VALUES.entries()) {
            if (!own && (index - windowStart + PATH_VALUES.length) % PATH_VALUES.length >= CONTAINER_WINDOW) continue;
            const made = goodProbe(`path :${parameter} ${value.kind}`);
            await probe({ ...made, path: samplePath(route.url, world, { ...goodPathParams(route, world), [parameter]: value.text }) }, (index + parameterIndex) % 4 === 0);
          }
        }
        windowStart = (windowStart + CONTAINER_WINDOW) % PATH_VALUES.length;

        // Each class once, the first ones on the parameters read so far; with `everyName`, as many as it takes to give each name one.
        const spread = async <T extends { kind: string; adminOnly?: boolean }>(kinds: readonly T[], everyName: boolean, make: (kind: T, name: string) => Probe) => {
          const list = [...names];
          const count = everyName ? Math.max(kinds.length, list.length) : kinds.length;
          for (let index = 0; index < count; index += 1) {
            // Routes start at different classes, so a name many routes read (ref, search) meets many of them.
            const kind = kinds[(index + walked) % kinds.length];
            await probe(make(kind, list[index % list.length]), index < kinds.length && !kind.adminOnly);
          }
        };
        const jsonBody = (payload: string): BodyShape => ({ kind: 'JSON', contentType: 'application/json', payload });
        await spread(QUERY_VALUES, isRead, (value, name) =>
          isRead
            ? { kind: `query ${name}: ${value.kind}`, path: realPath, query: joinQuery(encodeQuery(without(good, name)), value.query(name)) }
            : { kind: `query ${name}: ${value.kind}`, path: realPath, query: value.query(name), body: jsonBody(jsonObject(without(good, name))) },
        );
        if (!isRead) {
          for (const body of MALFORMED_BODIES) await probe({ kind: `body: ${body.kind}`, path: realPath, query: '', body }, true);
          await spread(NAMED_BODIES, false, (shape, name) => ({ kind: `body ${name}: ${shape.kind}`, path: realPath, query: '', body: shape.body(name) }));
          await spread(JSON_VALUES, true, (value, name) => ({
            kind: `body ${name}: ${value.kind}`,
            path: realPath,
            query: '',
            body: jsonBody(jsonObject(without(good, name), { [name]: value.json })),
          }));
        }

        if (route.method === 'DELETE') await discover();
        if (identity) await restore(realPath, identity);
        if (keyOf(route) === RUNNER_TOKEN_RESET) {
          const reset = await gantry.api('POST', `/runners/${world.sharedRunnerId}/reset_authentication_token`);
          if (reset.status !== 201) throw new Error(`renewing the runner token: ${reset.status} ${reset.text}`);
          world.runnerToken = String(reset.json.token);
        }
        outcome.names = [...names];
        outcomes.push(outcome);
        walked += 1;
        if (process.env.FUZZ_DEBUG) console.log(keyOf(route), Date.now() - started, Math.round(cpuMs() - cpuBefore), requests - sentBefore, answeredBytes - answeredBefore, outcome.good, JSON.stringify(good).slice(0, 200), outcome.names.join(','), [...new Set(outcome.realPathStatuses)].join(','));
      }
    });
    after(async () => {
      await gantry.close();
    });

    it('walks every route of its part of the route table', () => {
      assert.equal(outcomes.length, partRoutes, 'routes of the part walked');
      assert.ok(outcomes.length >= part.minRoutes, `only ${outcomes.length} routes walked`);
      assert.ok(requests >= part.minRequests, `only ${requests} requests sent`);
    });

    it('reaches each handler with real records: reads answer 2xx, writes act at least once', () => {
      const unreached = outcomes
        .filter(({ route }) => !MULTIPART_UPLOADS.has(keyOf(route)) && !OUTBOUND_CALLS.has(keyOf(route)))
        .filter(({ route }) => !PLANNING_ROUTES_WITHOUT_RECORDS.has(keyOf(route)))
        .filter(({ route, good, realPathStatuses }) => (route.method === 'GET' ? good >= 300 : !realPathStatuses.some((status) => status >= 200 && status < 300)))
        .map(({ route, good }) => `${keyOf(route)}: ${good}`);
      assert.deepEqual(unreached, []);
    });

    it('sends garbage under the parameter names the routes declare', () => {
      const read = new Set(outcomes.flatMap((outcome) => outcome.names));
      for (const name of part.namesRead) assert.ok(read.has(name), `no route was seen reading ${name}`);
      assert.ok(read.size >= part.minNames, `only ${read.size} parameter names seen`);
    });

    it('never answers 5xx, and answers 4xx with GitLab-shaped JSON', () => {
      assert.deepEqual(failures.slice(0, 200), [], `${failures.length} failures`);
    });
  });
}
