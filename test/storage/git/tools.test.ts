import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import { execa } from '#deps/execa';
import type { GitRepository } from '../../../src/storage/git/index.ts';
import { within } from '../../helpers/bounded.ts';
import { ANN, gitFixture, type GitFixture } from './fixture.ts';

/**
 * cp, tar and the compressors are found through PATH: wrappers placed first record the parent
 * each was started from ($PPID) and then run the real program, or fail after writing a little.
 */
describe('the tools git storage runs besides git', () => {
  let fixture: GitFixture;
  let repository: GitRepository;
  let wrappers: string;
  let parents: string;
  const originalPath = process.env.PATH;

  const wrap = async (program: string, failing = false): Promise<void> => {
    const real = (await execa('sh', ['-c', `command -v ${program}`])).stdout.trim();
    const body = failing
      ? `cat >/dev/null\nprintf 'partial output'\nexit 3\n`
      : `exec ${real} "$@"\n`;
    const file = path.join(wrappers, program);
    await writeFile(file, `#!/bin/sh\necho "${program} $PPID" >> ${parents}\n${body}`);
    await chmod(file, 0o755);
  };
  const recordedParents = async (): Promise<Array<[string, number]>> =>
    (await readFile(parents, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [program, parent] = line.split(' ');
        return [program!, Number(parent)];
      });
  const drain = async (stream: Readable): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  before(async () => {
    fixture = await gitFixture();
    await fixture.manager.create(1, { initializeWithReadme: true, defaultBranch: 'main', projectName: 'Tools', author: ANN });
    repository = fixture.manager.open(1);
  });
  beforeEach(async () => {
    wrappers = path.join(fixture.root, `wrappers-${Date.now()}-${Math.random().toString(36).slice(2)}`);
    parents = path.join(wrappers, 'parents.log');
    await mkdir(wrappers);
    process.env.PATH = `${wrappers}:${originalPath}`;
  });
  after(async () => {
    process.env.PATH = originalPath;
    await fixture.cleanup();
  });

  it('starts cp and tar for a snapshot from the spawner, never from this process', async () => {
    await wrap('cp');
    await wrap('tar');
    const bytes = await within(drain(repository.snapshot()), 60_000, 'the snapshot');
    const listing = path.join(fixture.root, 'snapshot.tar');
    await writeFile(listing, bytes);
    const entries = (await execa('tar', ['-t', '-f', listing], { env: { PATH: originalPath } })).stdout.split('\n');
    assert.ok(entries.includes('HEAD') && entries.includes('refs/heads/main'), entries.slice(0, 10).join(', '));
    const started = await recordedParents();
    assert.deepEqual([...new Set(started.map(([program]) => program))].sort(), ['cp', 'tar']);
    for (const [program, parent] of started) assert.notEqual(parent, process.pid, `${program} was forked from the test process`);
  });

  it('starts the archive compressor from the spawner, never from this process', async () => {
    await wrap('gzip');
    const bytes = await within(drain(repository.archive('main', 'tar.gz', 'p')), 60_000, 'the archive');
    assert.equal(bytes.subarray(0, 2).toString('hex'), '1f8b');
    const started = await recordedParents();
    assert.equal(started.length, 1);
    assert.notEqual(started[0]![1], process.pid, 'gzip was forked from the test process');
  });

  it('fails a snapshot whose tar fails after writing part of it', async () => {
    await wrap('tar', true);
    await assert.rejects(within(drain(repository.snapshot()), 60_000, 'the snapshot'), /tar failed \(exit code 3\)/);
  });

  it('fails an archive whose compressor fails after writing part of it', async () => {
    await wrap('bzip2', true);
    await assert.rejects(within(drain(repository.archive('main', 'tar.bz2', 'p')), 60_000, 'the archive'), /bzip2 failed \(exit code 3\)/);
  });
});
