import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import CRC32 from 'crc-32';
import { DEFAULTS, type RunnerEntry } from '../../src/runner/config/config.ts';
import { RunnerService } from '../../src/runner/daemon/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { openDatabase } from '../../src/storage/sql/database.ts';
import { createSqlStores } from '../../src/storage/sql/stores/index.ts';
import { testDatabase } from '../helpers/database.ts';
import { startNginx, type Nginx } from '../helpers/nginx.ts';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.ts';
import { freePort, startServe, type ServeProcess } from '../helpers/serve-process.ts';

/**
 * The topology of docs/scaling.md under fire: three `coordinator serve` processes on one
 * PostgreSQL database and one data directory behind nginx (round-robin), our runner on each
 * (shell executor, between them a proxy that records what reached the runner). 300 jobs across
 * 30 pipelines run while one coordinator is SIGKILLed and restarted and a fourth joins. Every
 * job runs exactly once (each appends its id to a ledger), every trace is byte-exact (what the
 * runner declared of it), no acknowledged write is lost (pipelines, variables, commits made
 * through nginx during the run), and no request through nginx fails unless it was in flight
 * on the killed coordinator.
 */
const TOKEN = 'fleet-root-token-0123456789abcdef';
const PIPELINES = 30;
const BUILD_JOBS = 5;
const TEST_JOBS = 5;
const LINES = 200;
const KILL_AFTER_STARTED = 90;
const JOIN_AFTER_STARTED = 200;
const RUN_DEADLINE_MS = 9 * 60_000;
const postgres = process.env.GANTRY_TEST_DATABASE_URL !== undefined;

/** What a job prints: its id and name on every line, colours, a UTF-8 letter and CRLF line ends. */
function expectedOutput(jobId: number, name: string): Buffer {
  const lines: string[] = [];
  for (let line = 1; line <= LINES; line++) lines.push(`\x1b[32mjob ${jobId}\x1b[0m line ${String(line).padStart(4, '0')} é ${name}\r\n`);
  return Buffer.from(lines.join(''));
}

function ciFile(): string {
  const script = (extra: string[]) => [
    ...extra,
    'echo "$CI_JOB_ID" >> "$GANTRY_TEST_LEDGER"',
    `for i in $(seq 1 ${LINES}); do printf '\\033[32mjob %s\\033[0m line %04d é %s\\r\\n' "$CI_JOB_ID" "$i" "$CI_JOB_NAME"; done`,
  ];
  const job = (stage: string, lines: string[], variables = '') => `  stage: ${stage}\n${variables}  script:\n${lines.map((line) => `    - ${JSON.stringify(line)}\n`).join('')}`;
  let text = 'workflow:\n  rules:\n    - if: \'$CI_PIPELINE_SOURCE == "push"\'\n      when: never\n    - when: always\nvariables:\n  GIT_STRATEGY: none\nstages: [build, test]\n';
  for (let index = 1; index <= BUILD_JOBS; index++) text += `build-${index}:\n${job('build', script([]))}`;
  for (let index = 1; index < TEST_JOBS; index++) text += `test-${index}:\n${job('test', script([]))}`;
  // One job per pipeline clones the repository through nginx: any coordinator serves it from the shared data directory.
  // A fetch in flight on the killed coordinator fails (nginx answers 502); as a GitLab user would, the job tries again.
  text += `test-fetch:\n${job('test', script(['test -f README.md']), '  variables:\n    GIT_STRATEGY: fetch\n    GET_SOURCES_ATTEMPTS: "3"\n')}`;
  return text;
}

/**
 * One request on a connection of its own (`Connection: close`). A kept-alive connection may be
 * closed by nginx's reload (the fourth coordinator joining) just as a request is written on it:
 * that failure would be the client's pool, not a coordinator's.
 */
function exchangeOnce(url: string, method: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; bytes: Buffer }> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { method, agent: false, headers: { ...headers, connection: 'close', ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** One request through nginx, numbered so the access log tells which coordinator it reached. */
interface Exchange {
  seq: number;
  method: string;
  url: string;
  startedAt: number;
  endedAt: number;
  status: number | 'network error';
  /** Why the exchange failed without an answer. */
  error?: string;
}

class Client {
  private seq = 0;
  readonly exchanges: Exchange[] = [];

  constructor(private readonly baseUrl: string) {}

  async call(method: string, url: string, body?: unknown): Promise<{ status: number; json: unknown; bytes: Buffer } | undefined> {
    const seq = ++this.seq;
    const exchange: Exchange = { seq, method, url, startedAt: Date.now(), endedAt: 0, status: 'network error' };
    this.exchanges.push(exchange);
    try {
      const answer = await exchangeOnce(`${this.baseUrl}/api/v4${url}`, method, { 'private-token': TOKEN, 'x-test-request': String(seq) }, body);
      exchange.status = answer.status;
      let json: unknown;
      try {
        json = JSON.parse(answer.bytes.toString());
      } catch {
        // not JSON (a trace)
      }
      return { status: answer.status, json, bytes: answer.bytes };
    } catch (error) {
      exchange.error = String(error);
      return undefined;
    } finally {
      exchange.endedAt = Date.now();
    }
  }

  /** As call, but the answer must be `expected`. */
  async must(method: string, url: string, expected: number, body?: unknown): Promise<{ json: unknown; bytes: Buffer }> {
    const answer = await this.call(method, url, body);
    assert.equal(answer?.status, expected, `${method} ${url}: ${answer?.bytes.toString().slice(0, 300) ?? 'no answer'}`);
    return answer!;
  }
}

type Json = Record<string, unknown>;

describe('three coordinators behind nginx, one killed and one joining', { skip: !postgres && 'needs PostgreSQL: bash scripts/with-postgres.sh' }, () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('runs 300 jobs across 30 pipelines: each once, every trace byte-exact, no acknowledged write lost', async () => {
    const database = await testDatabase();
    cleanups.push(() => database.drop());
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-fleet-data-'));
    const work = mkdtempSync(path.join(tmpdir(), 'gantry-fleet-work-'));
    cleanups.push(() => rmSync(work, { recursive: true, force: true }), () => rmSync(dataDir, { recursive: true, force: true }));
    const ledger = path.join(work, 'ledger');
    writeFileSync(ledger, '');
    const started = () => readFileSync(ledger, 'utf8').split('\n').filter(Boolean);

    const ports = [await freePort(), await freePort(), await freePort(), await freePort()];
    const nginx: Nginx = await startNginx(await freePort(), ports.slice(0, 3));
    cleanups.push(() => nginx.stop());
    const serve = (index: number) =>
      startServe({ dataDir, port: ports[index]!, token: TOKEN, args: ['--database-url', database.url, '--external-url', nginx.url], env: { GANTRY_LOG_LEVEL: 'warn' } });
    const coordinators: ServeProcess[] = [await serve(0)];
    coordinators.push(...(await Promise.all([serve(1), serve(2)])));
    cleanups.push(async () => {
      for (const coordinator of coordinators) await coordinator.stop();
    });

    const client = new Client(nginx.url);
    const registrationToken = ((await client.must('GET', '/application/settings', 200)).json as Json).runners_registration_token as string;
    const proxies: RecordingProxy[] = [];
    const runners: RunnerService[] = [];
    cleanups.push(async () => {
      for (const runner of runners) {
        await runner.abort('test finished', 5_000).catch(() => undefined);
        await runner.close();
      }
      for (const proxy of proxies) await proxy.close();
    });
    /** Our runner, talking to coordinator `index` only (through its recording proxy). */
    const attachRunner = async (index: number) => {
      const proxy = await startRecordingProxy(ports[index]!);
      proxies.push(proxy);
      const registered = await fetch(`${proxy.url}/api/v4/runners`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: registrationToken, description: `fleet-${index}`, run_untagged: true }),
      });
      assert.equal(registered.status, 201);
      const token = ((await registered.json()) as Json).token as string;
      const entry: RunnerEntry = {
        name: `fleet-${index}`, url: proxy.url, token, executor: 'shell', limit: 0, requestConcurrency: 1, outputLimit: DEFAULTS.outputLimit,
        environment: [`GANTRY_TEST_LEDGER=${ledger}`], shell: 'bash', debugTraceDisabled: false, docker: { pullPolicy: ['if-not-present'] }, cache: { type: '', shared: false }, featureFlags: {},
      };
      const runner = new RunnerService({
        config: { concurrent: 3, checkInterval: 1, logLevel: 'warn', logFormat: 'runner', shutdownTimeout: 10, runners: [entry] },
        logger: silentLogger(),
        workingDirectory: mkdtempSync(path.join(work, `runner-${index}-`)),
      });
      await runner.start();
      runners.push(runner);
    };
    for (let index = 0; index < 3; index++) await attachRunner(index);

    const project = (await client.must('POST', '/projects', 201, { name: 'fleet', initialize_with_readme: true })).json as Json;
    const projectId = project.id as number;
    await client.must('POST', `/projects/${projectId}/repository/commits`, 201, { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ciFile() }] });

    // The workload through nginx: pipelines, and a stream of small writes and reads.
    const pipelines: number[] = [];
    const variables = new Map<string, string>();
    const commits: string[] = [];
    let done = false;
    const creating = (async () => {
      while (pipelines.length < PIPELINES) {
        const answer = await client.call('POST', `/projects/${projectId}/pipeline?ref=main`);
        if (answer?.status === 201) pipelines.push((answer.json as Json).id as number);
        await sleep(300);
      }
    })();
    const writing = (async () => {
      for (let n = 0; !done; n++) {
        if (n % 2 === 0) {
          const answer = await client.call('POST', `/projects/${projectId}/variables`, { key: `W${n}`, value: `value-${n}` });
          if (answer?.status === 201) variables.set(`W${n}`, `value-${n}`);
        } else {
          const answer = await client.call('POST', `/projects/${projectId}/repository/commits`, {
            branch: 'writes', start_branch: commits.length === 0 ? 'main' : undefined, commit_message: `write ${n}`, actions: [{ action: 'create', file_path: `w${n}.txt`, content: `${n}\n` }],
          });
          if (answer?.status === 201) commits.push((answer.json as Json).id as string);
        }
        await sleep(40);
      }
    })();
    const reading = (async () => {
      while (!done) {
        await client.call('GET', `/projects/${projectId}/jobs?per_page=20`);
        await sleep(100);
      }
    })();

    /** The jobs that did not succeed (retried ones included), with the end of their logs: what a failure message needs. */
    const unsuccessfulJobs = async (): Promise<string> => {
      const lines: string[] = [];
      for (const id of pipelines) {
        const listed = await client.call('GET', `/projects/${projectId}/pipelines/${id}/jobs?per_page=100&include_retried=true`);
        for (const job of (listed?.status === 200 ? (listed.json as Json[]) : []).filter((candidate) => candidate.status !== 'success')) {
          const trace = await client.call('GET', `/projects/${projectId}/jobs/${String(job.id)}/trace`);
          const tail = trace?.bytes.toString().split('\n').slice(-6).join('\\n') ?? '';
          lines.push(`pipeline ${id} job ${String(job.id)} ${String(job.name)}: ${String(job.status)} ${String(job.failure_reason ?? '')}, retried ${String(job.retried)}, ledger ${started().includes(String(job.id))}, log ends ${JSON.stringify(tail)}`);
        }
      }
      return lines.length === 0 ? 'no unsuccessful job' : lines.join('; ');
    };

    // The kill and the restart, then the fourth coordinator.
    const runStart = Date.now();
    const waitForStarted = async (count: number) => {
      while (started().length < count) {
        assert.ok(Date.now() - runStart < RUN_DEADLINE_MS, `only ${started().length} jobs started`);
        await sleep(100);
      }
    };
    await waitForStarted(KILL_AFTER_STARTED);
    const killedAt = Date.now();
    await coordinators[1]!.kill();
    await sleep(1_500);
    coordinators[1] = await serve(1);
    const restartedAt = Date.now();
    await waitForStarted(JOIN_AFTER_STARTED);
    coordinators.push(await serve(3));
    await attachRunner(3);
    await nginx.setUpstreams(ports);

    // Every pipeline finished.
    await creating;
    const final = new Set(['success', 'failed', 'canceled', 'skipped']);
    const statuses = new Map<number, string>();
    for (;;) {
      for (const id of pipelines) {
        if (final.has(statuses.get(id) ?? '')) continue;
        const answer = await client.call('GET', `/projects/${projectId}/pipelines/${id}`);
        if (answer?.status === 200) statuses.set(id, (answer.json as Json).status as string);
      }
      if (pipelines.every((id) => final.has(statuses.get(id) ?? ''))) break;
      if (Date.now() - runStart >= RUN_DEADLINE_MS) assert.fail(`pipelines not finished: ${JSON.stringify([...statuses].filter(([, status]) => status !== 'success'))}; ${started().length} jobs started; ${await unsuccessfulJobs()}`);
      await sleep(1_000);
    }
    done = true;
    await writing;
    await reading;
    assert.deepEqual([...new Set(statuses.values())], ['success'], `every pipeline succeeded; ${await unsuccessfulJobs()}`);

    // Every job ran exactly once.
    const jobs: Json[] = [];
    for (const id of pipelines) {
      jobs.push(...((await client.must('GET', `/projects/${projectId}/pipelines/${id}/jobs?per_page=100&include_retried=true`, 200)).json as Json[]));
    }
    const latest = jobs.filter((job) => job.retried !== true);
    assert.equal(latest.length, PIPELINES * (BUILD_JOBS + TEST_JOBS));
    assert.deepEqual([...new Set(latest.map((job) => job.status))], ['success']);
    const ran = started().map(Number);
    assert.equal(new Set(ran).size, ran.length, 'no job ran twice');
    assert.deepEqual([...ran].sort((a, b) => a - b), latest.map((job) => job.id as number).sort((a, b) => a - b), 'every job ran once');
    const delivered = new Set(proxies.flatMap((proxy) => [...proxy.delivered]));
    for (const job of jobs.filter((candidate) => candidate.retried === true)) {
      // Only a job whose hand-out died with the killed coordinator is retried: it never reached a
      // runner, so no runner reported it, and the lost hand-out sweep failed it with
      // scheduler_failure, which is retried automatically (docs/scaling.md).
      assert.equal(job.failure_reason, 'scheduler_failure', `retried job ${String(job.id)}`);
      assert.equal(delivered.has(job.id as number), false, `retried job ${String(job.id)} had reached a runner`);
    }

    // Every trace is what its runner sent.
    const finals = new Map(proxies.flatMap((proxy) => [...proxy.finals]));
    for (const job of latest) {
      const id = job.id as number;
      const trace = (await client.must('GET', `/projects/${projectId}/jobs/${id}/trace`, 200)).bytes;
      const declared = finals.get(id);
      assert.ok(declared, `job ${id}: no final update seen from its runner`);
      assert.equal(trace.length, declared.bytesize, `job ${id}: trace size`);
      assert.equal(`crc32:${(CRC32.buf(trace) >>> 0).toString(16).padStart(8, '0')}`, declared.checksum, `job ${id}: trace checksum`);
      const output = expectedOutput(id, job.name as string);
      const at = trace.indexOf(output);
      assert.ok(at >= 0 && trace.indexOf(output, at + 1) < 0, `job ${id}: its output once, byte for byte`);
    }

    // No acknowledged write was lost.
    assert.ok(variables.size > 10 && commits.length > 10, `writes made: ${variables.size} variables, ${commits.length} commits`);
    const storedVariables = new Map<string, string>();
    for (let page = 1; ; page++) {
      const listed = (await client.must('GET', `/projects/${projectId}/variables?per_page=100&page=${page}`, 200)).json as Json[];
      for (const variable of listed) storedVariables.set(variable.key as string, variable.value as string);
      if (listed.length < 100) break;
    }
    for (const [key, value] of variables) assert.equal(storedVariables.get(key), value, `variable ${key}`);
    const history = new Set<string>();
    for (let page = 1; ; page++) {
      const listed = (await client.must('GET', `/projects/${projectId}/repository/commits?ref_name=writes&per_page=100&page=${page}`, 200)).json as Json[];
      for (const commit of listed) history.add(commit.id as string);
      if (listed.length < 100) break;
    }
    for (const sha of commits) assert.ok(history.has(sha), `commit ${sha} is on the branch`);

    // No request failed unless it was in flight on the killed coordinator.
    const killedUpstream = `127.0.0.1:${ports[1]}`;
    const log = new Map(nginx.accessLog().map((entry) => [entry.request, entry]));
    const failed = client.exchanges.filter((exchange) => exchange.status === 'network error' || exchange.status >= 500);
    for (const exchange of failed) {
      const entry = log.get(String(exchange.seq));
      const where = `${exchange.method} ${exchange.url} (${String(exchange.status)}${exchange.error ? `: ${exchange.error}` : ''}, ${exchange.startedAt - killedAt} ms after the kill, nginx: ${JSON.stringify(entry)})`;
      assert.ok(exchange.startedAt <= killedAt && exchange.endedAt >= killedAt, `a request failed that was not in flight at the kill: ${where}`);
      assert.equal(entry?.upstreams.at(-1), killedUpstream, `a failed request was not on the killed coordinator: ${where}`);
    }

    // The killed coordinator's leftovers are cleaned up by the others (its heartbeat went stale); the live ones' are not.
    const opened = openDatabase(database.url);
    cleanups.push(() => opened.close());
    const stores = createSqlStores(opened.db);
    let instances = await stores.instances.list();
    while (instances.length !== coordinators.length) {
      assert.ok(Date.now() - killedAt < 120_000, `the killed coordinator's row is still there: ${JSON.stringify(instances)}`);
      await sleep(1_000);
      instances = await stores.instances.list();
    }
    const live = new Set(instances.map((instance) => instance.id));
    const temporary = readdirSync(path.join(dataDir, 'repositories', '.tmp'));
    assert.deepEqual(temporary.filter((owner) => !live.has(owner)), [], 'temporary directories of dead coordinators');

    const unreachable = proxies.reduce((sum, proxy) => sum + proxy.unreachable, 0);
    process.stdout.write(
      `# fleet: ${latest.length} jobs in ${Date.now() - runStart} ms; kill at ${killedAt - runStart} ms, restart after ${restartedAt - killedAt} ms; ` +
        `${client.exchanges.length} requests through nginx, ${failed.length} failed in flight; ${variables.size} variables and ${commits.length} commits acknowledged; ` +
        `${jobs.length - latest.length} lost hand-outs retried; ${unreachable} runner requests found their coordinator down\n`,
    );
  });
});
