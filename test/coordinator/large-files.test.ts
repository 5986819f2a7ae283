import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, ftruncateSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProjectWithRepository } from './groups-fixtures.ts';

const SIZE = 256 * 1024 * 1024;
/** A response held whole in memory would add at least SIZE; streaming stays far below. */
const MEMORY_ALLOWANCE = 96 * 1024 * 1024;

/** Requests `url` and reads the answer to the end, keeping nothing; the RSS growth counts from before the request. */
async function download(url: string): Promise<{ status: number; bytes: number; peakGrowth: number }> {
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  const response = await fetch(url, { headers: { 'private-token': ROOT_TOKEN } });
  let peak = Math.max(baseline, process.memoryUsage().rss);
  let bytes = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  return { status: response.status, bytes, peakGrowth: peak - baseline };
}

describe('files of hundreds of MB', () => {
  let gantry: TestCoordinator;
  let baseUrl: string;
  let projectId: number;
  const scratch = mkdtempSync(path.join(tmpdir(), 'gantry-large-'));

  before(async () => {
    gantry = await startTestCoordinator();
    const group = await makeGroup(gantry, 'big');
    projectId = (await makeProjectWithRepository(gantry, group.id, 'data', { withReadme: true })).id;
    // Commit a 256 MiB file with git plumbing: the API would carry it as JSON.
    const gitDir = path.join(gantry.coordinator.context.config.dataDir, 'repositories', `${projectId}.git`);
    const file = path.join(scratch, 'huge.bin');
    const handle = openSync(file, 'w');
    ftruncateSync(handle, SIZE);
    closeSync(handle);
    const git = (args: string[], input?: string) => execFileSync('git', [`--git-dir=${gitDir}`, ...args], { input, encoding: 'utf8' }).trim();
    const blob = git(['hash-object', '-w', file]);
    const head = git(['rev-parse', 'refs/heads/main']);
    const tree = git(['mktree'], `${git(['ls-tree', head])}\n100644 blob ${blob}\thuge.bin\n`);
    const commit = git(['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit-tree', tree, '-p', head, '-m', 'huge']);
    git(['update-ref', 'refs/heads/main', commit, head]);
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(gantry.coordinator.app.server.address() as AddressInfo).port}/api/v4/projects/${projectId}/repository`;
  });
  after(async () => {
    await gantry.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('streams the raw file without holding it in memory', async () => {
    const { status, bytes, peakGrowth } = await download(`${baseUrl}/files/huge.bin/raw?ref=main`);
    assert.equal(status, 200);
    assert.equal(bytes, SIZE);
    assert.ok(peakGrowth < MEMORY_ALLOWANCE, `memory grew by ${Math.round(peakGrowth / 1048576)} MiB`);
  });

  it('streams archives holding it the same way', async () => {
    for (const format of ['tar', 'tar.gz']) {
      const { status, bytes, peakGrowth } = await download(`${baseUrl}/archive.${format}`);
      assert.equal(status, 200);
      if (format === 'tar') assert.ok(bytes > SIZE, `${format}: ${bytes} bytes`);
      else assert.ok(bytes > 0);
      assert.ok(peakGrowth < MEMORY_ALLOWANCE, `${format}: memory grew by ${Math.round(peakGrowth / 1048576)} MiB`);
    }
  });
});
