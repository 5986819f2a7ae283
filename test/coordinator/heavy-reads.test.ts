import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { within } from '../helpers/bounded.ts';
import { gitProcessesIn, startDownload, waitFor } from '../helpers/stalled-requests.ts';
import { makeGroup, makeProjectWithRepository } from './groups-fixtures.ts';

const LINES = 800_000;
/** A 50-byte line: the blamed file is 40 MB. */
const line = (index: number): string => `line ${String(index).padStart(7, '0')} of a rather ordinary text file, fifty b\n`;
const BLAME_LIMIT = 48 * 1024 * 1024;
/** The old blame held the porcelain output, its lines and the JSON at once: 700 MB for this file. */
const MEMORY_ALLOWANCE = 96 * 1024 * 1024;

describe('heavy repository reads', () => {
  let gantry: TestCoordinator;
  let gitDir: string;
  let baseUrl: string;
  let cloneUrl: string;
  const scratch = mkdtempSync(path.join(tmpdir(), 'gantry-heavy-'));

  before(async () => {
    gantry = await startTestCoordinator({ extra: { git: { blameMaxBytes: BLAME_LIMIT, work: { slots: 1 } } } });
    const group = await makeGroup(gantry, 'heavy', { visibility: 'public' });
    const project = await makeProjectWithRepository(gantry, group.id, 'data', { visibility: 'public', withReadme: true });
    gitDir = path.join(gantry.dataDir, 'repositories', `${project.id}.git`);
    const git = (args: string[], input?: string) => execFileSync('git', [`--git-dir=${gitDir}`, ...args], { input, encoding: 'utf8' }).trim();
    const text = path.join(scratch, 'big.txt');
    writeFileSync(text, Array.from({ length: LINES }, (_, index) => line(index + 1)).join(''));
    const noise = path.join(scratch, 'noise.bin');
    writeFileSync(noise, randomBytes(50 * 1024 * 1024));
    const head = git(['rev-parse', 'refs/heads/main']);
    const entries = `${git(['ls-tree', head])}\n100644 blob ${git(['hash-object', '-w', text])}\tbig.txt\n100644 blob ${git(['hash-object', '-w', noise])}\tnoise.bin\n`;
    const commit = git(['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit-tree', git(['mktree'], entries), '-p', head, '-m', 'big files']);
    git(['update-ref', 'refs/heads/main', commit, head]);
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const origin = `http://127.0.0.1:${(gantry.coordinator.app.server.address() as AddressInfo).port}`;
    baseUrl = `${origin}/api/v4/projects/${project.id}/repository`;
    cloneUrl = `${origin}/heavy/data.git`;
  });

  after(async () => {
    await gantry?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('streams the blame of a 40 MB file without holding it in memory', async () => {
    globalThis.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const response = await fetch(`${baseUrl}/files/big.txt/blame?ref=main`, { headers: { 'private-token': ROOT_TOKEN } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    let bytes = 0;
    let head = '';
    let tail = '';
    for await (const chunk of response.body!) {
      const text = Buffer.from(chunk).toString('utf8');
      if (head.length < 200) head += text.slice(0, 200);
      tail = (tail + text).slice(-200);
      bytes += chunk.byteLength;
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    assert.ok(bytes > LINES * 50, `${bytes} bytes`);
    assert.match(head, /^\[\{"commit":\{"id":"[0-9a-f]{40}"/);
    assert.ok(tail.endsWith(`${JSON.stringify(line(LINES).slice(0, -1))}]}]`), tail);
    assert.ok(peak - baseline < MEMORY_ALLOWANCE, `memory grew by ${Math.round((peak - baseline) / 1048576)} MiB`);
  });

  it('answers a range of the blame with just those lines', async () => {
    const response = await fetch(`${baseUrl}/files/big.txt/blame?ref=main&range[start]=${LINES - 1}&range[end]=${LINES + 5}`, { headers: { 'private-token': ROOT_TOKEN } });
    const ranges = (await response.json()) as Array<{ commit: { title: string }; lines: string[] }>;
    assert.deepEqual(ranges.map((range) => [range.commit.title, range.lines]), [['big files', [line(LINES - 1).slice(0, -1), line(LINES).slice(0, -1)]]]);
  });

  it('refuses to blame a file over the limit with 422', async () => {
    const response = await fetch(`${baseUrl}/files/noise.bin/blame?ref=main`, { headers: { 'private-token': ROOT_TOKEN } });
    assert.equal(response.status, 422);
    const body = (await response.json()) as { message: string };
    assert.match(body.message, new RegExp(`noise\\.bin is ${50 * 1024 * 1024} bytes; blame is limited to files of at most ${BLAME_LIMIT} bytes`));
  });

  it('stops the archive git when its client hangs up, and drops queued archives whose client left', async () => {
    const { work } = gantry.coordinator.context.repositories;
    const headers = { 'private-token': ROOT_TOKEN };
    const running = await startDownload(`${baseUrl}/archive.tar?sha=main`, { headers });
    assert.equal(running.status, 200);
    assert.ok(running.head.byteLength > 0);
    // The one slot is held by the stalled download; a second archive waits for it.
    assert.equal(work.running, 1);
    assert.ok(gitProcessesIn(gitDir).some((process) => process.includes('archive')), gitProcessesIn(gitDir).join('\n'));
    const queued = http.get(`${baseUrl}/archive.zip?sha=main`, { headers });
    queued.on('error', () => undefined);
    await waitFor(() => work.queued === 1, 'the second archive to queue');
    queued.destroy();
    await waitFor(() => work.queued === 0, 'the queued archive to leave the queue');
    assert.equal(work.running, 1);
    running.hangUp();
    await waitFor(() => !gitProcessesIn(gitDir).some((process) => process.includes('archive')), 'git archive to stop');
    await waitFor(() => work.running === 0, 'the slot to be released');
  });

  it('stops upload-pack and pack-objects when a cloning client hangs up; a ref listing meanwhile takes no slot', async () => {
    const { work } = gantry.coordinator.context.repositories;
    const head = execFileSync('git', [`--git-dir=${gitDir}`, 'rev-parse', 'refs/heads/main'], { encoding: 'utf8' }).trim();
    const pkt = (text: string) => `${(text.length + 4).toString(16).padStart(4, '0')}${text}`;
    // A protocol v2 fetch of everything, read no further than its first bytes: the 50 MB pack cannot all be sent.
    const clone = await startDownload(`${cloneUrl}/git-upload-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-upload-pack-request', 'git-protocol': 'version=2' },
      body: `${pkt('command=fetch\n')}0001${pkt(`want ${head}\n`)}${pkt('done\n')}0000`,
    });
    assert.equal(clone.status, 200);
    const serving = () => gitProcessesIn(gitDir).filter((process) => /upload-pack|pack-objects|http-backend/.test(process));
    await waitFor(() => serving().some((process) => process.includes('pack-objects')), 'pack-objects to run');
    assert.equal(work.running, 1);
    // A ref listing packs nothing: it is answered while the one slot is taken.
    const listing = fetch(`${cloneUrl}/git-upload-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-upload-pack-request', 'git-protocol': 'version=2' },
      body: `${pkt('command=ls-refs\n')}0001${pkt('ref-prefix refs/heads/\n')}0000`,
    }).then(async (response) => ({ status: response.status, text: await response.text() }));
    const listed = await within(listing, 30_000, 'the ref listing, while the slot is taken');
    assert.equal(listed.status, 200);
    assert.ok(listed.text.includes(`${head} refs/heads/main`), listed.text);
    assert.equal(work.running, 1, 'the listing took no slot');
    clone.hangUp();
    await waitFor(() => serving().length === 0, `upload-pack and pack-objects to stop (${serving().join('; ')})`);
    await waitFor(() => work.running === 0, 'the slot to be released');
  });
});
