import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import CRC32 from 'crc-32';
import { turnBudget } from '../helpers/bounded.ts';
import { testDatabase } from '../helpers/database.ts';
import { freePort, startServe, type ServeProcess } from '../helpers/serve-process.ts';

/**
 * SIGKILL of `coordinator serve` while 20 jobs stream their traces, then a restart on the same
 * data directory (and database) and port. The runners' side is played over real HTTP as
 * gitlab-runner v13.12 plays it (reference/runner-protocol.md §3–§5): they retry connection
 * errors with back-off, resume from the coordinator's `Range` on a 416, and finish. No job is
 * lost or handed out twice, every acknowledged trace byte survives the kill, and every stored
 * trace equals what its runner sent.
 */
const TOKEN = 'kill-test-root-token-0123456789ab';
const JOBS = 20;
const PATCHES = 24;
const PATCH_BYTES = 32 * 1024;
/** Patches each runner sends before the kill; the rest wait for the restarted coordinator. */
const BEFORE_KILL = PATCHES / 2;
const RUNNER_INFO = { name: 'gitlab-runner', version: '13.12.0', revision: '7a6612da', platform: 'linux', architecture: 'amd64', executor: 'shell' };
const postgres = process.env.GANTRY_TEST_DATABASE_URL !== undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function checksum(bytes: Uint8Array): string {
  return `crc32:${(CRC32.buf(bytes) >>> 0).toString(16).padStart(8, '0')}`;
}

/** A job's log: every byte value, ANSI colours, \r and text, different for every job (seeded by its id). */
function traceOf(jobId: number): Buffer {
  const bytes = Buffer.alloc(PATCHES * PATCH_BYTES);
  let state = jobId * 2654435761;
  for (let index = 0; index < bytes.length; index++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    bytes[index] = state >>> 24;
  }
  Buffer.from(`\x1b[32;1mjob ${jobId}\x1b[0;m\r\n`).copy(bytes, 0);
  return bytes;
}

/**
 * Shared by the test and its runners: `gate` holds new requests while the coordinator is down
 * and its state is being checked, as a down coordinator would, without racing the checks.
 */
interface World {
  baseUrl: string;
  gate: Promise<void>;
  inFlight: number;
}

type Answer = { status: number; headers: Headers; body: Buffer };

/** One HTTP exchange, retried with back-off (100 ms doubling to 1 s) while the coordinator does not answer. */
async function exchange(world: World, method: string, url: string, headers: Record<string, string>, body?: Uint8Array | string): Promise<Answer> {
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    await world.gate;
    world.inFlight += 1;
    try {
      const response = await fetch(`${world.baseUrl}/api/v4${url}`, { method, headers, body });
      return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
    } catch {
      await sleep(delay);
    } finally {
      world.inFlight -= 1;
    }
  }
}

const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** A JSON request as the runner sends it (no user credential). */
function runnerPost(world: World, method: string, url: string, body: unknown): Promise<Answer> {
  const request = json(body);
  return exchange(world, method, url, request.headers, request.body);
}

function rangeEnd(answer: Answer): number {
  const match = /^0-(\d+)$/.exec(answer.headers.get('range') ?? '');
  assert.ok(match, `a Range header 0-<size> on ${answer.status}: ${answer.headers.get('range')}`);
  return Number(match[1]);
}

interface RunnerRecord {
  jobId: number;
  token: string;
  trace: Buffer;
  /** What the coordinator acknowledged (202 Range), last. */
  acknowledged: number;
  /** `acknowledged` when the coordinator was killed. */
  acknowledgedBeforeKill: number;
  resumedWith416: number;
}

/** Runner side of one job: PATCH the trace from `sent` on (416 → resend from the coordinator's Range), then the final PUT. */
async function runJob(world: World, record: RunnerRecord, pause: Promise<void>): Promise<void> {
  const { jobId, token, trace } = record;
  let sent = 0;
  const flush = async () => {
    while (sent < trace.length) {
      if (sent >= BEFORE_KILL * PATCH_BYTES) await pause;
      const end = Math.min(trace.length, sent - (sent % PATCH_BYTES) + PATCH_BYTES);
      const answer = await exchange(world, 'PATCH', `/jobs/${jobId}/trace`, { 'JOB-TOKEN': token, 'content-type': 'text/plain', 'content-range': `${sent}-${end - 1}` }, trace.subarray(sent, end));
      if (answer.status === 202) {
        assert.equal(rangeEnd(answer), end, `job ${jobId}: 202 acknowledges the patch`);
        assert.equal(answer.headers.get('job-status'), 'running');
        sent = end;
        record.acknowledged = end;
      } else if (answer.status === 416) {
        record.resumedWith416 += 1;
        sent = rangeEnd(answer);
        assert.ok(sent <= trace.length, `job ${jobId}: the coordinator holds no more than was sent`);
      } else {
        assert.fail(`job ${jobId}: PATCH ${sent}-${end - 1} answered ${answer.status} ${answer.body.toString()}`);
      }
    }
  };
  for (let attempt = 0; ; attempt++) {
    await flush();
    const update = { token, state: 'success', checksum: checksum(trace), output: { checksum: checksum(trace), bytesize: trace.length }, info: RUNNER_INFO };
    const answer = await runnerPost(world, 'PUT', `/jobs/${jobId}`, update);
    if (answer.status === 200) return;
    assert.ok(attempt < 10, `job ${jobId}: final update still ${answer.status} after ${attempt} attempts`);
    if (answer.status === 202) await sleep(200);
    else if (answer.status === 412) sent = 0;
    else assert.fail(`job ${jobId}: final PUT answered ${answer.status} ${answer.body.toString()}`);
  }
}

async function api(world: World, method: string, url: string, body?: unknown): Promise<Answer & { json: Record<string, unknown> & Array<Record<string, unknown>> }> {
  const request = body === undefined ? { headers: {}, body: undefined } : json(body);
  const answer = await exchange(world, method, url, { 'PRIVATE-TOKEN': TOKEN, ...request.headers }, request.body);
  let parsed: unknown = {};
  try {
    parsed = JSON.parse(answer.body.toString());
  } catch {
    // not JSON (a trace)
  }
  return { ...answer, json: parsed as Record<string, unknown> & Array<Record<string, unknown>> };
}

const requestJob = (world: World, token: string) => runnerPost(world, 'POST', '/jobs/request', { token, info: RUNNER_INFO });

/** Answers what the kill hit: requests in flight, and patches stored but not acknowledged (resumed after a 416). */
async function scenario(env: Record<string, string>): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-kill-'));
  const port = await freePort();
  let server: ServeProcess | undefined;
  try {
    server = await startServe({ dataDir, port, token: TOKEN, env });
    const world: World = { baseUrl: server.baseUrl, gate: Promise.resolve(), inFlight: 0 };

    const project = await api(world, 'POST', '/projects', { name: 'killed', initialize_with_readme: true });
    assert.equal(project.status, 201, project.body.toString());
    const projectId = project.json.id as number;
    const ci = Array.from({ length: JOBS }, (_, index) => `job${index}:\n  script: [make test${index}]\n`).join('');
    const commit = await api(world, 'POST', `/projects/${projectId}/repository/commits`, {
      branch: 'main', commit_message: 'Add CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ci }],
    });
    assert.equal(commit.status, 201, commit.body.toString());
    const settings = await api(world, 'GET', '/application/settings');
    // The instance registration token registers a shared runner.
    const registered = await runnerPost(world, 'POST', '/runners', { token: settings.json.runners_registration_token, description: 'kill test', run_untagged: true, info: RUNNER_INFO });
    assert.equal(registered.status, 201, registered.body.toString());
    const runnerToken = String((JSON.parse(registered.body.toString()) as Record<string, unknown>).token);

    // 20 pollers take one job each (the pipeline is created by the commit's push task).
    let releaseAfterRestart!: () => void;
    const afterRestart = new Promise<void>((resolve) => (releaseAfterRestart = resolve));
    const taken: number[] = [];
    const records: RunnerRecord[] = [];
    const runners = Array.from({ length: JOBS }, async (_, index) => {
      // 50 ms apart: two minutes of asking before the poller gives up.
      const budget = turnBudget(2_400, () => `poller ${index} waiting for a job (taken so far: ${taken.join(', ')})`);
      for (;;) {
        budget.next();
        const answer = await requestJob(world, runnerToken);
        if (answer.status === 204 || answer.status === 409) {
          await sleep(50);
          continue;
        }
        assert.equal(answer.status, 201, answer.body.toString());
        const payload = JSON.parse(answer.body.toString()) as { id: number; token: string };
        taken.push(payload.id);
        const record: RunnerRecord = { jobId: payload.id, token: payload.token, trace: traceOf(payload.id), acknowledged: 0, acknowledgedBeforeKill: 0, resumedWith416: 0 };
        records.push(record);
        return runJob(world, record, afterRestart);
      }
    });
    const finished = Promise.all(runners);
    let failure: unknown;
    finished.catch((error: unknown) => (failure = error));

    // Kill once every job has streamed part of its trace, while patches are on the wire.
    const progress = () => records.length === JOBS && records.every((record) => record.acknowledged >= 3 * PATCH_BYTES);
    for (let waited = 0; !progress() || world.inFlight < 3; waited += 5) {
      if (failure !== undefined) throw failure;
      assert.ok(waited < 120_000, `no progress: ${records.map((record) => record.acknowledged).join(', ')}`);
      await sleep(5);
    }
    let openGate!: () => void;
    world.gate = new Promise<void>((resolve) => (openGate = resolve));
    const inFlightAtKill = world.inFlight;
    await server.kill();
    for (const record of records) record.acknowledgedBeforeKill = record.acknowledged;
    assert.deepEqual(new Set(taken).size, JOBS, '20 distinct jobs taken before the kill');

    server = await startServe({ dataDir, port, token: TOKEN, env });
    world.baseUrl = server.baseUrl;
    // Before any runner resends: the acknowledged prefix of every trace is stored, byte for byte.
    const direct: World = { baseUrl: server.baseUrl, gate: Promise.resolve(), inFlight: 0 };
    for (const record of records) {
      const stored = await api(direct, 'GET', `/projects/${projectId}/jobs/${record.jobId}/trace`);
      assert.equal(stored.status, 200);
      assert.ok(stored.body.length >= record.acknowledgedBeforeKill, `job ${record.jobId}: stored ${stored.body.length} bytes, ${record.acknowledgedBeforeKill} were acknowledged`);
      assert.ok(stored.body.equals(record.trace.subarray(0, stored.body.length)), `job ${record.jobId}: the stored trace is a prefix of what was sent`);
      const job = await api(direct, 'GET', `/projects/${projectId}/jobs/${record.jobId}`);
      assert.equal(job.json.status, 'running', `job ${record.jobId} still runs after the restart`);
    }
    for (let index = 0; index < 3; index++) {
      const answer = await requestJob(direct, runnerToken);
      assert.equal(answer.status, 204, `no job handed out again after the restart: ${answer.status} ${answer.body.toString()}`);
    }
    openGate();
    releaseAfterRestart();
    await finished;

    assert.equal(taken.length, JOBS);
    assert.equal(new Set(taken).size, JOBS, 'no job handed out twice');
    for (const record of records) {
      const job = await api(world, 'GET', `/projects/${projectId}/jobs/${record.jobId}`);
      assert.equal(job.json.status, 'success', `job ${record.jobId}`);
      const stored = await api(world, 'GET', `/projects/${projectId}/jobs/${record.jobId}/trace`);
      assert.equal(stored.body.length, record.trace.length, `job ${record.jobId}: trace size`);
      assert.ok(stored.body.equals(record.trace), `job ${record.jobId}: the stored trace is byte-exact`);
    }
    const jobs = await api(world, 'GET', `/projects/${projectId}/jobs?per_page=100`);
    assert.deepEqual(jobs.json.map((job) => job.id as number).sort((a, b) => a - b), [...taken].sort((a, b) => a - b), 'the pipeline has exactly the jobs taken');
    const pipelines = await api(world, 'GET', `/projects/${projectId}/pipelines`);
    assert.deepEqual(pipelines.json.map((pipeline) => pipeline.status), ['success'], 'one pipeline, finished');
    const after = await requestJob(world, runnerToken);
    assert.equal(after.status, 204, 'nothing left to hand out');
    assert.ok(inFlightAtKill > 0, 'the kill hit requests in flight');
    const resumed = records.filter((record) => record.resumedWith416 > 0).length;
    return `${inFlightAtKill} requests in flight at the kill; ${resumed} jobs resumed after a 416 (a patch stored but not acknowledged)`;
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('SIGKILL of the coordinator while 20 jobs stream traces', () => {
  it('on SQLite: no job lost or handed out twice, acknowledged trace bytes kept, runners finish', { timeout: 300_000 }, async (t) => {
    t.diagnostic(await scenario({}));
  });

  describe('on PostgreSQL', { skip: !postgres && 'needs PostgreSQL: bash scripts/with-postgres.sh' }, () => {
    let database: Awaited<ReturnType<typeof testDatabase>> | undefined;
    after(async () => database?.drop());
    it('no job lost or handed out twice, acknowledged trace bytes kept, runners finish', { timeout: 300_000 }, async (t) => {
      database = await testDatabase();
      t.diagnostic(await scenario({ GANTRY_DATABASE_URL: database.url }));
    });
  });
});
