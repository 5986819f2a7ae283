import assert from 'node:assert/strict';
import CRC32 from 'crc-32';
import { after, before, describe, it } from 'node:test';
import { HttpJobSession } from '../../src/runner/http/job-session.ts';
import { Transport } from '../../src/runner/http/transport.ts';
import { runnerInfo } from '../../src/runner/version.ts';
import { FakeGitLab } from './fake-gitlab.ts';
import { payload } from './support.ts';

const crc = (bytes: Buffer) => `crc32:${(CRC32.buf(bytes) >>> 0).toString(16).padStart(8, '0')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HTTP job session (trace PATCH, final PUT)', () => {
  const gitlab = new FakeGitLab();
  let transport: Transport;
  before(async () => {
    await gitlab.start();
    transport = new Transport({ url: gitlab.url, userAgent: 'test-agent', backoffMinMs: 1, backoffMaxMs: 5 });
  });
  after(async () => {
    await transport.close();
    await gitlab.stop();
  });

  const running = () => {
    const job = gitlab.enqueue(payload());
    gitlab.queue.pop();
    job.state = 'running';
    return job;
  };
  const session = (job: ReturnType<typeof running>, extra: Partial<ConstructorParameters<typeof HttpJobSession>[0]> = {}) =>
    new HttpJobSession({ transport, jobId: job.payload.id, jobToken: job.payload.token, info: runnerInfo(), updateInterval: 0.05, ...extra });

  it('patches the trace incrementally with an inclusive Content-Range, then PUTs the final state with crc32 and size', async () => {
    const job = running();
    const s = session(job);
    s.appendTrace(Buffer.from('hello '));
    await sleep(150);
    s.appendTrace(Buffer.from('world\n'));
    await s.finish({ state: 'failed', failureReason: 'script_failure', exitCode: 3 });
    assert.equal(job.trace.toString(), 'hello world\n');
    const patches = gitlab.requestsTo('PATCH', new RegExp(`/jobs/${job.payload.id}/trace$`));
    assert.deepEqual(patches.map((request) => request.headers['content-range']), ['0-5', '6-11']);
    assert.equal(patches[0].headers['content-type'], 'text/plain');
    assert.equal(patches[0].headers['job-token'], job.payload.token);
    const final = job.updates.at(-1) as Record<string, unknown>;
    assert.equal(final.state, 'failed');
    assert.equal(final.failure_reason, 'script_failure');
    assert.equal(final.exit_code, 3);
    assert.equal(final.checksum, crc(Buffer.from('hello world\n')));
    assert.deepEqual(final.output, { checksum: crc(Buffer.from('hello world\n')), bytesize: 12 });
    assert.equal(job.state, 'failed');
    // The trace always precedes the final state.
    const order = gitlab.requests.filter((request) => request.path.includes(`/jobs/${job.payload.id}`)).map((request) => request.method);
    assert.equal(order.at(-1), 'PUT');
  });

  it('leaves failure_reason and exit_code out of a success', async () => {
    const job = running();
    const s = session(job);
    s.appendTrace(Buffer.from('ok\n'));
    await s.finish({ state: 'success' });
    const final = job.updates.at(-1) as Record<string, unknown>;
    assert.equal(final.state, 'success');
    assert.ok(!('failure_reason' in final) && !('exit_code' in final));
    assert.equal(typeof (final.info as { name: string }).name, 'string');
  });

  it('recovers from 416 by resending from the size the coordinator reports', async () => {
    const job = running();
    const s = session(job);
    s.appendTrace(Buffer.from('0123456789abcdef'));
    await sleep(120);
    assert.equal(job.trace.toString(), '0123456789abcdef');
    job.trace = job.trace.subarray(0, 10);
    s.appendTrace(Buffer.from('XYZ'));
    await s.finish({ state: 'success' });
    assert.equal(job.trace.toString(), '0123456789abcdefXYZ');
    const ranges = gitlab.requestsTo('PATCH', new RegExp(`/jobs/${job.payload.id}/trace$`)).map((request) => request.headers['content-range']);
    assert.deepEqual(ranges, ['0-15', '16-18', '10-18']);
  });

  it('obeys X-GitLab-Trace-Update-Interval', async () => {
    const job = running();
    gitlab.traceUpdateInterval = 1;
    const s = session(job);
    try {
      s.appendTrace(Buffer.from('a'));
      await sleep(150);
      s.appendTrace(Buffer.from('b'));
      await sleep(400);
      const patches = gitlab.requestsTo('PATCH', new RegExp(`/jobs/${job.payload.id}/trace$`));
      assert.equal(patches.length, 1, 'the second patch waits for the 1 s interval');
    } finally {
      gitlab.traceUpdateInterval = null;
      await s.finish({ state: 'success' });
    }
    assert.equal(job.trace.toString(), 'ab');
  });

  it('cancels when the coordinator answers 403 with Job-Status: canceled, then still reports job_canceled', async () => {
    const job = running();
    const s = session(job);
    s.appendTrace(Buffer.from('working\n'));
    await sleep(120);
    gitlab.cancel(job.payload.id);
    s.appendTrace(Buffer.from('more\n'));
    await sleep(150);
    assert.equal(s.canceled.aborted, true);
    await s.finish({ state: 'failed', failureReason: 'job_canceled' });
    const final = gitlab.requestsTo('PUT', new RegExp(`/jobs/${job.payload.id}$`)).at(-1);
    assert.equal(JSON.parse(final?.body.toString() ?? '{}').failure_reason, 'job_canceled');
  });

  it('sends a keep-alive PUT state=running during silence, which also learns of a cancel', async () => {
    const job = running();
    const s = session(job, { keepAliveInterval: 0.05 });
    await sleep(200);
    const keepAlive = job.updates.filter((update) => update.state === 'running');
    assert.ok(keepAlive.length >= 1);
    gitlab.cancel(job.payload.id);
    await sleep(150);
    assert.equal(s.canceled.aborted, true);
    await s.finish({ state: 'failed', failureReason: 'job_canceled' });
  });

  it('repeats the final PUT after 202 (with the interval) and resends the whole trace after 412', async () => {
    const job = running();
    const s = session(job);
    s.appendTrace(Buffer.from('trace'));
    let puts = 0;
    gitlab.intercept = (request) => {
      if (request.method !== 'PUT' || !request.path.endsWith(`/jobs/${job.payload.id}`)) return undefined;
      puts++;
      if (puts === 1) return { status: 202, headers: { 'x-gitlab-trace-update-interval': '1' }, body: '202' };
      if (puts === 2) {
        job.trace = Buffer.alloc(0);
        return { status: 412 };
      }
      return undefined;
    };
    const started = Date.now();
    await s.finish({ state: 'success' });
    gitlab.intercept = null;
    assert.equal(puts, 3);
    assert.ok(Date.now() - started >= 900, 'waited the interval after 202');
    assert.equal(job.trace.toString(), 'trace');
    assert.equal(job.state, 'success');
  });

  it('Job-Status: canceling asks for a graceful cancel, not an abort', async () => {
    const job = running();
    const s = session(job);
    gitlab.intercept = (request) =>
      request.method === 'PATCH' && request.path.endsWith(`/jobs/${job.payload.id}/trace`) ? { status: 202, headers: { 'job-status': 'canceling', range: '0-8' } } : undefined;
    try {
      s.appendTrace(Buffer.from('working\n'));
      const deadline = Date.now() + 5_000;
      while (!s.cancelRequested.aborted) {
        assert.ok(Date.now() < deadline, 'Job-Status: canceling was not taken as a cancel request');
        await sleep(20);
      }
      assert.equal(s.canceled.aborted, false, 'a graceful cancel lets after_script run');
    } finally {
      gitlab.intercept = null;
    }
    await s.finish({ state: 'failed', failureReason: 'job_canceled' });
  });

  it('learns of a cancel from a held keep-alive without waiting for a trace update (Gantry), and stops watching a coordinator that does not hold', async () => {
    const job = running();
    const held: Array<() => void> = [];
    gitlab.intercept = (request) => {
      if (request.method !== 'PUT' || !request.path.endsWith(`/jobs/${job.payload.id}`) || request.headers['x-gantry-job-watch'] !== '50') return undefined;
      return new Promise((resolve) => held.push(() => resolve({ status: 403, headers: { 'job-status': 'canceled', 'x-gantry-job-watch': '50' } })));
    };
    // Trace updates every 60 s: only the held keep-alive can bring the cancel in time.
    const s = session(job, { updateInterval: 60, watchSeconds: 50 });
    try {
      const deadline = Date.now() + 5_000;
      while (held.length === 0) {
        assert.ok(Date.now() < deadline, 'no keep-alive was held');
        await sleep(10);
      }
      for (const release of held) release();
      while (!s.canceled.aborted) {
        assert.ok(Date.now() < deadline, 'the held keep-alive did not stop the job');
        await sleep(10);
      }
    } finally {
      gitlab.intercept = null;
    }
    await s.finish({ state: 'failed', failureReason: 'job_canceled' });

    const plain = running();
    const t = session(plain, { updateInterval: 60, watchSeconds: 50 });
    await sleep(300);
    const watched = gitlab.requestsTo('PUT', new RegExp(`/jobs/${plain.payload.id}$`)).filter((request) => request.headers['x-gantry-job-watch'] === '50');
    assert.equal(watched.length, 1, 'GitLab answers without holding: asked once, then the trace updates carry on alone');
    await t.finish({ state: 'success' });
  });

  it('watches again after a held keep-alive got no answer or a 502 (a coordinator killed behind a load balancer)', async () => {
    const job = running();
    const held: Array<() => void> = [];
    let watches = 0;
    gitlab.intercept = (request) => {
      if (request.method !== 'PUT' || !request.path.endsWith(`/jobs/${job.payload.id}`) || request.headers['x-gantry-job-watch'] !== '50') return undefined;
      watches += 1;
      if (watches === 1) return Promise.resolve({ status: 502, headers: { 'content-type': 'text/html' }, body: '<html>502 Bad Gateway</html>' });
      return new Promise((resolve) => held.push(() => resolve({ status: 403, headers: { 'job-status': 'canceled', 'x-gantry-job-watch': '50' } })));
    };
    const s = session(job, { updateInterval: 60, watchSeconds: 50 });
    try {
      const deadline = Date.now() + 10_000;
      while (held.length === 0) {
        assert.ok(Date.now() < deadline, `no keep-alive held after the 502 (${watches} watches)`);
        await sleep(10);
      }
      for (const release of held) release();
      while (!s.canceled.aborted) {
        assert.ok(Date.now() < deadline, 'the held keep-alive did not stop the job');
        await sleep(10);
      }
    } finally {
      gitlab.intercept = null;
    }
    assert.equal(watches, 2);
    await s.finish({ state: 'failed', failureReason: 'job_canceled' });
  });
});
