import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { gitIn, importCommit, lines, repositoryDir } from './diff-fixtures.ts';
import { makeGroup, makeProjectWithRepository } from './groups-fixtures.ts';

/** 50-byte lines: a million of them make the 50 MB file. */
const fiftyBytes = (index: number): string => `line ${String(index).padStart(7, '0')} of a big generated file, 50 bytes\n`;
/** The old diff held git's output, its text and the JSON at once: +580 MB for a 50 MB diff. */
const MEMORY_ALLOWANCE = 96 * 1024 * 1024;

/** Pseudo-random numbers, one a line: two such files share few lines, so git's diff of them is slow (tens of seconds). */
function scrambled(count: number, seed: number): string {
  let state = seed;
  return lines(count, () => {
    // xorshift32: a full-period sequence, so the two files share only chance lines.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return `${(state >>> 0) % 1_000_000}\n`;
  });
}

/** `git diff` processes of a repository, as "pid command". */
function diffProcessesIn(gitDir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (command.includes(gitDir) && command.includes(' diff ')) found.push(`${pid} ${command}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A GET whose caller can hang up (destroy the connection) at any time; answers the status and first chunk when they come. */
function openRequest(url: string): { firstChunk: Promise<{ status: number; chunk: Buffer }>; hangUp(): void } {
  const request = http.request(url, { headers: { 'private-token': ROOT_TOKEN } });
  const firstChunk = new Promise<{ status: number; chunk: Buffer }>((resolve, reject) => {
    request.on('response', (response) => {
      response.once('data', (chunk: Buffer) => {
        response.pause();
        resolve({ status: response.statusCode ?? 0, chunk });
      });
    });
    request.on('error', reject);
  });
  firstChunk.catch(() => undefined);
  request.end();
  return { firstChunk, hangUp: () => request.destroy() };
}

describe('diffs are streamed', () => {
  let gantry: TestCoordinator;
  let gitDir: string;
  let baseUrl: string;
  let base: string;
  let big: string;
  let slow: string;

  before(async () => {
    gantry = await startTestCoordinator();
    const group = await makeGroup(gantry, 'streams', { visibility: 'public' });
    const project = await makeProjectWithRepository(gantry, group.id, 'big', { visibility: 'public', withReadme: true });
    gitDir = repositoryDir(gantry, project.id);
    base = importCommit(gitDir, 'base', gitIn(gitDir, ['rev-parse', 'refs/heads/main']), 'Base', [{ path: 'slow.txt', content: scrambled(2_000_000, 1) }]);
    big = importCommit(gitDir, 'big', base, 'A 50 MB file', [{ path: 'big.txt', content: lines(1_000_000, fiftyBytes) }]);
    slow = importCommit(gitDir, 'slow', base, 'Rewrite', [{ path: 'slow.txt', content: scrambled(2_000_000, 2) }]);
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(gantry.coordinator.app.server.address() as AddressInfo).port}/api/v4/projects/${project.id}/repository`;
  });

  after(async () => {
    await gantry?.close();
  });

  it('answers the compare and the commit diff of a 50 MB file in bounded memory', async () => {
    globalThis.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sample = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    try {
      const compared = await fetch(`${baseUrl}/compare?from=${base}&to=${big}`, { headers: { 'private-token': ROOT_TOKEN } });
      assert.equal(compared.status, 200);
      const comparison = (await compared.json()) as { diffs: Array<Record<string, unknown>>; overflow: boolean };
      // A million lines: past the safe line total, so the comparison collapses it.
      assert.deepEqual(comparison.diffs.map((diff) => [diff.new_path, diff.collapsed, diff.diff]), [['big.txt', true, '']]);
      const committed = await fetch(`${baseUrl}/commits/${big}/diff`, { headers: { 'private-token': ROOT_TOKEN } });
      assert.equal(committed.status, 200);
      const diffs = (await committed.json()) as Array<Record<string, unknown>>;
      assert.deepEqual(diffs.map((diff) => [diff.new_path, diff.too_large, diff.diff]), [['big.txt', true, '']]);
    } finally {
      clearInterval(sample);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    assert.ok(peak - baseline < MEMORY_ALLOWANCE, `memory grew by ${Math.round((peak - baseline) / 1048576)} MiB`);
  });

  for (const [route, suffix] of [
    ['comparison', () => `compare?from=${base}&to=${slow}`],
    ['commit diff', () => `commits/${slow}/diff`],
  ] as const) {
    it(`stops git when the client of a ${route} hangs up before its answer`, async () => {
      // git works on the rewrite for tens of seconds before it writes a byte: the answer has not started.
      const download = openRequest(`${baseUrl}/${suffix()}`);
      await waitFor(() => diffProcessesIn(gitDir).length > 0, 'git diff to start');
      download.hangUp();
      await waitFor(() => diffProcessesIn(gitDir).length === 0, `git diff to stop: ${diffProcessesIn(gitDir).join('; ')}`);
      await assert.rejects(download.firstChunk);
    });
  }
});
