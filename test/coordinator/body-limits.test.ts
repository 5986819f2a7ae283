import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { isRunnerProtocolRequest } from '../../src/coordinator/http/runner-routes.ts';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProjectWithRepository } from './groups-fixtures.ts';

const MiB = 1024 * 1024;
const HUGE = 200 * MiB;
/** Reading one 200 MB body would add at least 200 MB; refusing before reading stays far below. */
const MEMORY_ALLOWANCE = 50 * MiB;

interface HugeOutcome {
  status: number;
  body: string;
  /** Bytes the client managed to write before the answer. */
  sent: number;
  peakGrowth: number;
}

/** Streams `size` bytes of a JSON body from one reused chunk (nothing held whole) and reads the answer. */
function sendBody(port: number, path: string, size: number, headers: Record<string, string>, declareLength = true): Promise<HugeOutcome> {
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const chunk = Buffer.alloc(64 * 1024, 'a');
  chunk.write('{"name":"');
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/api/v4${path}`,
      agent: false,
      headers: { 'content-type': 'application/json', ...(declareLength ? { 'content-length': String(size) } : {}), ...headers },
    });
    request.on('response', (response) => {
      answered = true;
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () => {
        clearInterval(sampler);
        peak = Math.max(peak, process.memoryUsage().rss);
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(parts).toString(), sent, peakGrowth: peak - baseline });
        request.destroy();
      });
    });
    request.on('error', (error) => {
      if (!answered) {
        clearInterval(sampler);
        reject(error);
      }
    });
    const pump = (): void => {
      while (!answered && sent < size) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!request.write(piece)) {
          request.once('drain', pump);
          return;
        }
      }
      if (!answered) request.end();
    };
    pump();
  });
}

describe('request bodies', () => {
  let gantry: TestCoordinator;
  let port: number;
  let projectId: number;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { contentBodyLimit: 4 * MiB, uploadBodyLimit: 3 * MiB } });
    const group = await makeGroup(gantry, 'bodies', { visibility: 'public' });
    projectId = (await makeProjectWithRepository(gantry, group.id, 'files', { visibility: 'public', withReadme: true })).id;
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gantry.coordinator.app.server.address() as AddressInfo).port;
  });
  after(() => gantry.close());

  describe('from callers not signed in by a header or the query', () => {
    it('answers 401 to a 200 MB body before reading it, with or without a length', async () => {
      for (const declareLength of [true, false]) {
        const outcome = await sendBody(port, '/projects', HUGE, {}, declareLength);
        assert.equal(outcome.status, 401, outcome.body);
        assert.deepEqual(JSON.parse(outcome.body), { message: '401 Unauthorized' });
        assert.ok(outcome.sent < HUGE, `the whole body was sent (${declareLength ? 'with' : 'without'} a length)`);
        assert.ok(outcome.peakGrowth < MEMORY_ALLOWANCE, `memory grew by ${Math.round(outcome.peakGrowth / MiB)} MiB`);
      }
    });

    it('answers 401 to a bad token before reading the body', async () => {
      for (const headers of [{ 'private-token': 'not-a-token' }, { authorization: 'Bearer not-a-token' }] as Array<Record<string, string>>) {
        const outcome = await sendBody(port, '/projects', HUGE, headers);
        assert.equal(outcome.status, 401, outcome.body);
        assert.ok(outcome.sent < HUGE);
        assert.ok(outcome.peakGrowth < MEMORY_ALLOWANCE, `memory grew by ${Math.round(outcome.peakGrowth / MiB)} MiB`);
      }
      const viaQuery = await sendBody(port, '/projects?private_token=not-a-token', HUGE, {});
      assert.equal(viaQuery.status, 401);
    });

    it('still signs in with private_token in a small body, form or JSON', async () => {
      const json = await gantry.api('POST', '/projects', { token: null, body: { name: 'by-json-body', private_token: ROOT_TOKEN } });
      assert.equal(json.status, 201, json.text);
      const form = await gantry.api('POST', '/projects', { token: null, form: { name: 'by-form-body', private_token: ROOT_TOKEN } });
      assert.equal(form.status, 201, form.text);
      // Sudo from the header, the query or the body applies to a token found in the body.
      const carol = await gantry.createUser('carol');
      for (const [name, options] of [
        ['sudo-header', { headers: { sudo: 'carol' }, body: { name: 'sudo-header', private_token: ROOT_TOKEN } }],
        ['sudo-body', { body: { name: 'sudo-body', private_token: ROOT_TOKEN, sudo: carol.id } }],
      ] as const) {
        const created = await gantry.api('POST', '/projects', { token: null, ...options });
        assert.equal(created.status, 201, `${name}: ${created.text}`);
        assert.equal((created.json.namespace as { path: string }).path, 'carol', name);
      }
      const viaQuery = await gantry.api('POST', '/projects?sudo=carol', { token: null, body: { name: 'sudo-query', private_token: ROOT_TOKEN } });
      assert.equal((viaQuery.json.namespace as { path: string }).path, 'carol');
    });

    it('refuses private_token in a body past the anonymous limit (64 KiB) without reading it', async () => {
      const response = await gantry.api('POST', '/projects', { token: null, body: { name: 'too-big', description: 'x'.repeat(70 * 1024), private_token: ROOT_TOKEN } });
      assert.equal(response.status, 401, response.text);
      assert.equal((await gantry.api('GET', '/projects?search=too-big')).list.length, 0);
    });

    it('refuses multipart bodies of unknown length', async () => {
      const response = await gantry.coordinator.app.inject({
        method: 'POST',
        url: '/api/v4/projects',
        headers: { 'content-type': 'multipart/form-data; boundary=abc', 'transfer-encoding': 'chunked' },
        payload: '--abc\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--abc--\r\n',
      });
      assert.equal(response.statusCode, 401);
    });
  });

  describe('from signed-in callers', () => {
    it('answers 413 with GitLab body past the API limit (1 MiB), without reading the rest', async () => {
      for (const declareLength of [true, false]) {
        const outcome = await sendBody(port, '/projects', HUGE, { 'private-token': ROOT_TOKEN }, declareLength);
        assert.equal(outcome.status, 413, outcome.body);
        assert.deepEqual(JSON.parse(outcome.body), { message: '413 Request Entity Too Large' });
        assert.ok(outcome.sent < HUGE);
        assert.ok(outcome.peakGrowth < MEMORY_ALLOWANCE, `memory grew by ${Math.round(outcome.peakGrowth / MiB)} MiB`);
      }
      const justOver = await gantry.api('POST', '/projects', { body: { name: 'big', description: 'x'.repeat(MiB) } });
      assert.equal(justOver.status, 413);
    });

    it('lets commits and file writes carry contents up to their own limit', async () => {
      const content = 'y'.repeat(2 * MiB);
      const commit = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
        body: { branch: 'main', commit_message: 'big', actions: [{ action: 'create', file_path: 'big.txt', content }] },
      });
      assert.equal(commit.status, 201, commit.text.slice(0, 200));
      const file = await gantry.api('POST', `/projects/${projectId}/repository/files/big2.txt`, { body: { branch: 'main', commit_message: 'big2', content } });
      assert.equal(file.status, 201, file.text.slice(0, 200));
      const update = await gantry.api('PUT', `/projects/${projectId}/repository/files/big2.txt`, { body: { branch: 'main', commit_message: 'big3', content: `${content}z` } });
      assert.equal(update.status, 200, update.text.slice(0, 200));
      const tooBig = await gantry.api('POST', `/projects/${projectId}/repository/files/big3.txt`, { body: { branch: 'main', commit_message: 'm', content: 'z'.repeat(5 * MiB) } });
      assert.equal(tooBig.status, 413);
    });

    it('keeps multipart uploads on their own limit', async () => {
      const multipart = (fileSize: number) => {
        const boundary = 'gantry-boundary';
        const payload = Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nupload-${fileSize}\r\n`),
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
          Buffer.alloc(fileSize, 1),
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
        return gantry.coordinator.app.inject({
          method: 'POST',
          // A route without a bound of its own (avatars on /projects have GitLab's 200 KB).
          url: `/api/v4/projects/${projectId}/issues`,
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'private-token': ROOT_TOKEN },
          payload,
        });
      };
      // Over the API limit (1 MiB) but under the upload limit (3 MiB here): accepted.
      assert.equal((await multipart(2 * MiB)).statusCode, 201);
      const tooBig = await multipart(4 * MiB);
      assert.equal(tooBig.statusCode, 413, tooBig.body);
    });
  });

  it('leaves the runner protocol to its own handlers', () => {
    for (const [method, url] of [
      ['POST', '/api/v4/runners'],
      ['DELETE', '/api/v4/runners'],
      ['POST', '/api/v4/runners/verify'],
      ['POST', '/api/v4/jobs/request'],
      ['PUT', '/api/v4/jobs/12'],
      ['PATCH', '/api/v4/jobs/12/trace'],
      ['POST', '/api/v4/jobs/12/artifacts?artifact_format=zip'],
      ['GET', '/api/v4/jobs/12/artifacts'],
    ] as const) {
      assert.equal(isRunnerProtocolRequest(method, url), true, `${method} ${url}`);
    }
    for (const [method, url] of [
      ['GET', '/api/v4/runners'],
      ['DELETE', '/api/v4/runners/3'],
      ['POST', '/api/v4/projects'],
      ['GET', '/api/v4/jobs/12'],
      ['POST', '/api/v4/projects/1/jobs/12/play'],
    ] as const) {
      assert.equal(isRunnerProtocolRequest(method, url), false, `${method} ${url}`);
    }
  });
});
