/**
 * Hostile CI files against one listening coordinator (in this process), printed as one JSON line:
 *  1. freeze: two projects get a CI file pushed through the commits API (`[ci skip]`), one with
 *     `rules:if: '$S =~ /^(a+)+$/'` (S, a project variable, is `aaa…a!`), one with
 *     `rules:exists: ['*a*a*a*a*a*a*a*a*b']` next to a file whose name is `aaa…a`; then one
 *     pipeline of each is run through the API. While each is created, `GET /api/v4/version` is
 *     sent every 10 ms: its slowest and 99th-percentile answers, next to the same GET measured
 *     idle in the same run (target: the slowest under 100 ms), and how each pipeline ended.
 *  2. yaml: a ~1 MB document of nested flow sequences (`a: [[[[…]]]]`) sent to `POST /ci/lint`,
 *     once and then 4 at once: the process's peak RSS growth over its RSS just before (which
 *     counts compile worker threads too), next to the growth for a small valid document.
 * Run: npx tsx bench/ci-abuse.ts [--only freeze,yaml] [--value-length 40] [--name-length 250]
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parseArgs } from 'node:util';
import { ciFileWithRule, FREEZING_RULES, freezingValue, longFileName, WARM_UP_RULE } from '../test/helpers/freezing-ci.ts';
import { type BenchCoordinator, percentile, ROOT_TOKEN, startBenchCoordinator } from './support/coordinator.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'freeze,yaml' },
    'value-length': { type: 'string', default: '40' },
    'name-length': { type: 'string', default: '250' },
  },
});
const only = values.only.split(',');
const valueLength = Number(values['value-length']);
const nameLength = Number(values['name-length']);
const GET_TARGET_MS = 100;
const MiB = 1024 * 1024;

async function api(gantry: BenchCoordinator, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${gantry.base}/api/v4${path}`, {
    method,
    headers: { 'private-token': ROOT_TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

async function expectStatus(answer: Promise<{ status: number; json: unknown }>, status: number, what: string): Promise<unknown> {
  const { status: got, json } = await answer;
  if (got !== status) throw new Error(`${what} answered ${got}: ${JSON.stringify(json)}`);
  return json;
}

/**
 * GET /version every 10 ms until stopped: each answer's time since it was due (the client is
 * in this process, so a blocked event loop delays the sending too, and that counts).
 */
function sampleLatency(gantry: BenchCoordinator): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    let due = performance.now();
    while (running) {
      await fetch(`${gantry.base}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } }).then((response) => response.arrayBuffer());
      const answered = performance.now();
      latencies.push(answered - due);
      await new Promise((resolve) => setTimeout(resolve, 10));
      due = answered + 10;
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies.sort((a, b) => a - b);
    },
  };
}

/** A project with the CI file (pushed with `[ci skip]`), then one API pipeline of it, timed with GETs alongside. */
async function frozenPipeline(gantry: BenchCoordinator, name: string, files: Record<string, string>, variables: Record<string, string>) {
  const project = await gantry.createProject({ name });
  for (const [key, value] of Object.entries(variables)) {
    await expectStatus(api(gantry, 'POST', `/projects/${project.id}/variables`, { key, value }), 201, 'POST variables');
  }
  const actions = Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content }));
  await expectStatus(api(gantry, 'POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'CI [ci skip]', actions }), 201, 'POST commits');
  const sampler = sampleLatency(gantry);
  const started = performance.now();
  const created = (await expectStatus(api(gantry, 'POST', `/projects/${project.id}/pipeline`, { ref: 'main' }), 201, 'POST pipeline')) as { id: number; status: string; yaml_errors?: string | null };
  const createMs = Math.round(performance.now() - started);
  const gets = await sampler.stop();
  const jobs = (await expectStatus(api(gantry, 'GET', `/projects/${project.id}/pipelines/${created.id}/jobs`), 200, 'GET jobs')) as Array<{ name: string }>;
  return {
    pipeline: { status: created.status, jobs: jobs.map((job) => job.name), yaml_errors: created.yaml_errors ?? null },
    create_ms: createMs,
    get_max_ms: Math.round(gets.at(-1) ?? Number.NaN),
    get_p99_ms: percentile(gets, 0.99),
    gets: gets.length,
  };
}

async function freeze(gantry: BenchCoordinator) {
  // Warm: the first requests of a new process, the compile workers started.
  await expectStatus(api(gantry, 'POST', '/ci/lint', { content: ciFileWithRule(WARM_UP_RULE) }), 200, 'POST /ci/lint');
  await sampleLatency(gantry).stop();
  const idleSampler = sampleLatency(gantry);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const idle = await idleSampler.stop();
  const regex = await frozenPipeline(gantry, 'regex-freeze', { '.gitlab-ci.yml': ciFileWithRule(FREEZING_RULES.regex) }, { S: freezingValue(valueLength) });
  const glob = await frozenPipeline(gantry, 'glob-freeze', { '.gitlab-ci.yml': ciFileWithRule(FREEZING_RULES.glob), [longFileName(nameLength)]: 'long name' }, {});
  return {
    value_length: valueLength + 1,
    name_length: nameLength,
    idle_get_p99_ms: percentile(idle, 0.99),
    idle_get_max_ms: Math.round(idle.at(-1) ?? Number.NaN),
    regex,
    glob,
    slowest_get_under_100_ms: Math.max(regex.get_max_ms, glob.get_max_ms) < GET_TARGET_MS,
  };
}

let exposedGc: (() => void) | undefined;
function rssAfterGc(): number {
  if (!exposedGc) {
    setFlagsFromString('--expose-gc');
    exposedGc = runInNewContext('gc') as () => void;
  }
  exposedGc();
  return process.memoryUsage.rss();
}

async function lintGrowth(gantry: BenchCoordinator, content: string, clients: number) {
  const before = rssAfterGc();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: clients }, () => api(gantry, 'POST', '/ci/lint', { content })));
  const ms = Math.round(performance.now() - started);
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage.rss());
  const first = answers[0]?.json as { valid?: boolean; errors?: string[] } | undefined;
  return { clients, rss_growth_mb: Math.round((peak - before) / MiB), ms, statuses: answers.map((answer) => answer.status), valid: first?.valid, errors: first?.errors?.slice(0, 1) };
}

async function yaml(gantry: BenchCoordinator) {
  const depth = 500_000;
  const nested = `a: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
  const small = 'job:\n  script: echo small\n';
  await lintGrowth(gantry, small, 1); // starts the compile workers, if any, before measuring
  return {
    nested_bytes: nested.length,
    small: await lintGrowth(gantry, small, 1),
    nested_one: await lintGrowth(gantry, nested, 1),
    nested_four: await lintGrowth(gantry, nested, 4),
  };
}

const gantry = await startBenchCoordinator();
const figures: Record<string, unknown> = { bench: 'ci-abuse' };
try {
  if (only.includes('freeze')) figures.freeze = await freeze(gantry);
  if (only.includes('yaml')) figures.yaml = await yaml(gantry);
} finally {
  await gantry.close();
}
console.log(JSON.stringify({ ...figures, node: process.version }));
