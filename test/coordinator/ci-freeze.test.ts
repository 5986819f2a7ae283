/**
 * Issue 22's freeze test: two CI files that froze the whole coordinator (a catastrophic
 * regular expression in `rules:if`, a catastrophic glob in `rules:exists`) are pushed through
 * the commits API of a coordinator listening on a real port (with `[ci skip]`), then a pipeline
 * of each is run at once through the API. While they are created, other requests are answered
 * within 500 ms of their slowest answer while two harmless files of the same shape go the same
 * way in the same run (the machine's load and the pipelines' own work, not the CI files), and
 * both pipelines end up created with the rule evaluated (false), not hung. bench/ci-abuse.ts
 * measures the same in absolute figures.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { ciFileWithRule as ciFile, FREEZING_RULES, freezingValue, HARMLESS_RULES, longFileName, WARM_UP_RULE } from '../helpers/freezing-ci.ts';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const VALUE = freezingValue();
const LONG_NAME = longFileName();
/**
 * Either rule, evaluated by a backtracking matcher on the event loop, holds it for hours (2^40
 * steps, or C(250, 8) for the glob), so a generous margin loses nothing; it was 100 ms, and a
 * CI run beside benchmarks (load 6.5 on two cores) saw 149 ms against 31 ms.
 */
const ANSWER_BUDGET_MS = 500;

describe('hostile CI files do not freeze the coordinator', () => {
  let gantry: TestCoordinator;
  let base: string;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50 } } });
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(gantry.coordinator.app.server.address() as AddressInfo).port}`;
  });
  after(async () => gantry?.close());

  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const response = await fetch(`${base}/api/v4${path}`, {
      method,
      headers: { 'private-token': ROOT_TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: text === '' ? undefined : JSON.parse(text) };
  }

  /**
   * GET /version every 10 ms until stopped; each answer's time since it was due (this client
   * shares the coordinator's event loop: a blocked loop delays the sending too, and counts).
   */
  function measureAnswers(): { stop(): Promise<number[]> } {
    const times: number[] = [];
    let running = true;
    const loop = (async () => {
      let due = performance.now();
      while (running) {
        const response = await fetch(`${base}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } });
        await response.arrayBuffer();
        assert.equal(response.status, 200);
        const answered = performance.now();
        times.push(answered - due);
        await new Promise((resolve) => setTimeout(resolve, 10));
        due = answered + 10;
      }
    })();
    return {
      async stop() {
        running = false;
        await loop;
        return times;
      },
    };
  }

  async function createProject(name: string): Promise<number> {
    const created = await call('POST', '/projects', { name });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    return (created.json as { id: number }).id;
  }

  async function push(projectId: number, files: Record<string, string>): Promise<void> {
    const actions = Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content }));
    const committed = await call('POST', `/projects/${projectId}/repository/commits`, { branch: 'main', commit_message: 'CI [ci skip]', actions });
    assert.equal(committed.status, 201, JSON.stringify(committed.json));
  }

  async function runPipeline(projectId: number): Promise<{ status: string; jobs: string[]; yamlErrors: unknown }> {
    const created = await call('POST', `/projects/${projectId}/pipeline`, { ref: 'main' });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const pipeline = created.json as { id: number; status: string; yaml_errors?: unknown };
    const jobs = await call('GET', `/projects/${projectId}/pipelines/${pipeline.id}/jobs`);
    return { status: pipeline.status, jobs: (jobs.json as Array<{ name: string }>).map((job) => job.name), yamlErrors: pipeline.yaml_errors ?? null };
  }

  /** Two projects with these CI files (pushed with `[ci skip]`), then a pipeline of each at once: their outcomes and the GETs' times meanwhile. */
  async function runBoth(prefix: string, regexRule: string, globRule: string) {
    const regexProject = await createProject(`${prefix}-regex`);
    const globProject = await createProject(`${prefix}-glob`);
    const variable = await call('POST', `/projects/${regexProject}/variables`, { key: 'S', value: VALUE });
    assert.equal(variable.status, 201, JSON.stringify(variable.json));
    await push(regexProject, { '.gitlab-ci.yml': ciFile(regexRule) });
    await push(globProject, { '.gitlab-ci.yml': ciFile(globRule), [LONG_NAME]: 'a file with a long name' });
    const answers = measureAnswers();
    const pipelines = await Promise.all([runPipeline(regexProject), runPipeline(globProject)]);
    const times = await answers.stop();
    assert.ok(times.length > 0, 'no request was answered while the pipelines were created');
    return { pipelines, slowest: Math.max(...times) };
  }

  it('answers other requests while the freezing files compile, and creates both pipelines', async () => {
    // Warm: the compile workers started (under tsx that is seconds of the machine's CPU).
    const lint = await call('POST', '/ci/lint', { content: ciFile(WARM_UP_RULE) });
    assert.equal((lint.json as { status: string }).status, 'valid', JSON.stringify(lint.json));
    await measureAnswers().stop();

    const harmless = await runBoth('harmless', HARMLESS_RULES.regex, HARMLESS_RULES.glob);
    const hostile = await runBoth('freeze', FREEZING_RULES.regex, FREEZING_RULES.glob);

    const created = { status: 'pending', jobs: ['always'], yamlErrors: null };
    assert.deepEqual(hostile.pipelines, [created, created]);
    assert.deepEqual(harmless.pipelines, [created, created]);
    assert.ok(
      hostile.slowest < harmless.slowest + ANSWER_BUDGET_MS,
      `a GET /version took ${Math.round(hostile.slowest)} ms while the freezing CI files compiled, ` +
        `${Math.round(harmless.slowest)} ms at most while harmless ones did (budget: ${ANSWER_BUDGET_MS} ms more)`,
    );
  });
});
