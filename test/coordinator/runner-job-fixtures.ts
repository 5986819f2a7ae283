/**
 * A listening coordinator for the runner's side of `POST /jobs/request` over real HTTP:
 * runners registered as gitlab-runner v13.12 registers them, projects with a .gitlab-ci.yml,
 * pipelines run through the API (so their jobs carry real definitions and wake long polls).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { CoordinatorOptions } from '../../src/coordinator/app.ts';
import type { EnvironmentRecord } from '../../src/storage/types-environments.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { testDatabase } from '../helpers/database.ts';
import { BOUNDARY, runnerRequest, uploadBody } from '../helpers/runner-artifacts.ts';
import { makeGroup, makeProjectWithRepository } from './groups-fixtures.ts';

export const RUNNER_INFO = {
  name: 'gitlab-runner', version: '13.12.0', revision: '7a6612da', platform: 'linux', architecture: 'amd64', executor: 'shell', shell: 'bash',
  features: {
    variables: true, image: false, services: false, artifacts: true, cache: true, shared: true, upload_multiple_artifacts: true,
    upload_raw_artifacts: true, session: true, terminal: true, refspecs: true, masking: true, proxy: false, raw_variables: true,
    artifacts_exclude: true, multi_build_steps: true, trace_reset: true, trace_checksum: true, trace_size: true, vault_secrets: true,
    cancelable: true, return_exit_code: true,
  },
};

export interface RunnerResponse {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

export interface RunnerJobsFixture {
  gantry: TestCoordinator;
  baseUrl: string;
  groupId: number;
  /** POST /api/v4<path> with a JSON body, as gitlab-runner sends it (no user credential). */
  post(path: string, body: unknown, signal?: AbortSignal): Promise<RunnerResponse>;
  /** POST /jobs/request for the runner token (with `last_update` when given). */
  requestJob(token: string, lastUpdate?: string, info?: Record<string, unknown>): Promise<RunnerResponse>;
  /** Registers a runner with a registration token; answers its id and authentication token. */
  register(registrationToken: string, extra?: Record<string, unknown>): Promise<{ id: number; token: string }>;
  instanceToken(): Promise<string>;
  /** A project of the group whose main branch holds `ci` as .gitlab-ci.yml. */
  ciProject(path: string, ci: string, extra?: Partial<ProjectRecord>): Promise<ProjectRecord & { headSha: string }>;
  /** Runs a pipeline on the ref (default main) through the API; answers its id. */
  runPipeline(projectId: number, ref?: string): Promise<number>;
  close(): Promise<void>;
}

export async function startRunnerJobsFixture(options: { gantry?: TestCoordinator; extra?: Partial<CoordinatorOptions> } = {}): Promise<RunnerJobsFixture> {
  // No task worker: the commits below record push tasks, and these tests run their pipelines themselves.
  const gantry = options.gantry ?? (await startTestCoordinator({ extra: { ci: { runTasks: false }, ...options.extra } }));
  const { coordinator } = gantry;
  await coordinator.context.settings.update({ default_branch_protection: 0 });
  await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(coordinator.app.server.address() as AddressInfo).port}`;
  const group = await makeGroup(gantry, `runners${Math.random().toString(36).slice(2, 8)}`, { visibility: 'public' });

  const post = async (path: string, body: unknown, signal?: AbortSignal): Promise<RunnerResponse> => {
    const response = await fetch(`${baseUrl}/api/v4${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'gitlab-runner 13.12.0 (13-12-stable; go1.13.8; linux/amd64)' },
      body: JSON.stringify(body),
      signal,
    });
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      // not JSON: json stays empty and the test looks at text
    }
    return { status: response.status, headers: response.headers, text, json };
  };

  return {
    gantry,
    baseUrl,
    groupId: group.id,
    post,
    requestJob: (token, lastUpdate, info = RUNNER_INFO) => post('/jobs/request', { info, token, ...(lastUpdate === undefined ? {} : { last_update: lastUpdate }) }),
    async register(registrationToken, extra = {}) {
      const response = await post('/runners', { info: RUNNER_INFO, token: registrationToken, description: 'test runner', run_untagged: true, locked: true, active: true, ...extra });
      if (response.status !== 201) throw new Error(`register: ${response.status} ${response.text}`);
      return { id: response.json.id as number, token: response.json.token as string };
    },
    async instanceToken() {
      return String((await gantry.api('GET', '/application/settings')).json.runners_registration_token);
    },
    async ciProject(path, ci, extra = {}) {
      const created = await makeProjectWithRepository(gantry, group.id, path, { visibility: 'public', withReadme: true });
      const project = (await coordinator.context.stores.projects.update(created.id, extra)) ?? created;
      const commit = await gantry.api('POST', `/projects/${project.id}/repository/commits`, {
        body: { branch: 'main', commit_message: 'Add CI\n\nwith a body', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ci }] },
      });
      if (commit.status !== 201) throw new Error(`commit: ${commit.status} ${commit.text}`);
      return { ...project, headSha: commit.json.id as string };
    },
    async runPipeline(projectId, ref = 'main') {
      const created = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref } });
      if (created.status !== 201) throw new Error(`pipeline: ${created.status} ${created.text}`);
      return created.json.id as number;
    },
    close: () => gantry.close(),
  };
}

/** The project's environment of that name, which must exist. */
export async function existingEnvironment(fixture: RunnerJobsFixture, projectId: number, name: string): Promise<EnvironmentRecord> {
  const found = await fixture.gantry.coordinator.context.stores.environments.findByName(projectId, name);
  assert.ok(found, `environment ${name}`);
  return found;
}

/**
 * Uploads a claimed job's dotenv report (none when null) and finishes it in `state`, as a runner
 * does; answers the time span of the finishing request.
 */
export async function finishWithDotenv(
  fixture: RunnerJobsFixture, job: { id: number; token: string }, report: string | null, state: 'success' | 'failed' = 'success',
): Promise<{ from: number; to: number }> {
  if (report !== null) {
    const uploaded = await runnerRequest(fixture.baseUrl, 'POST', `/jobs/${job.id}/artifacts?artifact_type=dotenv&artifact_format=gzip`, {
      token: job.token, body: uploadBody('.env.gz', gzipSync(report)), contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    });
    assert.equal(uploaded.status, 201, uploaded.text);
  }
  const from = Date.now();
  const response = await fetch(`${fixture.baseUrl}/api/v4/jobs/${job.id}`, {
    method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: job.token, state }),
  });
  assert.equal(response.status, 200, await response.text());
  return { from, to: Date.now() };
}

/** Adds a CI variable through the API under `scope` (`/admin/ci`, `/groups/:id`, `/projects/:id`). */
export async function addCiVariable(fixture: RunnerJobsFixture, scope: string, key: string, value: string, isProtected = false): Promise<void> {
  const created = await fixture.gantry.api('POST', `${scope}/variables`, { body: { key, value, protected: isProtected } });
  assert.equal(created.status, 201, created.text);
}

/**
 * Runs a pipeline on main and claims all its jobs: each job's variables among `keys` as the
 * runner reads them (of one key the last wins), by job name; no job is left after them.
 */
export async function claimedVariables(fixture: RunnerJobsFixture, projectId: number, runnerToken: string, keys: readonly string[]): Promise<Record<string, Record<string, string>>> {
  const pipelineId = await fixture.runPipeline(projectId);
  const jobs = await fixture.gantry.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs`);
  const byJob: Record<string, Record<string, string>> = {};
  for (let index = 0; index < jobs.list.length; index++) {
    const response = await fixture.requestJob(runnerToken);
    assert.equal(response.status, 201, response.text);
    const variables = (response.json.variables as Array<{ key: string; value: string }>).filter((variable) => keys.includes(variable.key));
    byJob[(response.json.job_info as { name: string }).name] = Object.fromEntries(variables.map((variable) => [variable.key, variable.value]));
  }
  assert.equal((await fixture.requestJob(runnerToken)).status, 204, "no job beyond the pipeline's");
  return byJob;
}

/**
 * Two coordinators on one fresh PostgreSQL database and one data directory (the topology
 * several coordinators need), each with its runner-jobs fixture; `close` stops both and drops it.
 */
export async function startTwoCoordinators(extra: Partial<CoordinatorOptions> = {}): Promise<{ a: RunnerJobsFixture; b: RunnerJobsFixture; close(): Promise<void> }> {
  const shared = await testDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-coordinators-'));
  const options = { databaseUrl: shared.url, dataDir, ci: { runTasks: false }, ...extra };
  const a = await startRunnerJobsFixture({ gantry: await startTestCoordinator({ extra: options }) });
  const b = await startRunnerJobsFixture({ gantry: await startTestCoordinator({ extra: options }) });
  return {
    a,
    b,
    async close() {
      await b.close();
      await a.close();
      await shared.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
