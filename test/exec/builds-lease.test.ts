/** `runner exec`'s kept builds directories: one per run at a time, a dead run's taken over (builds-lease.ts). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { leaseBuildsDirectory, leaseKeptBuilds } from '../../src/exec/builds-lease.ts';

let base: string;

/** The pid of a process that has ended. */
function deadPid(): number {
  const child = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' });
  return Number(child.stdout.trim());
}

describe('leaseBuildsDirectory', () => {
  beforeEach(() => {
    base = path.join(mkdtempSync(path.join(tmpdir(), 'gantry-lease-')), 'gantry', 'builds');
  });
  afterEach(() => rmSync(path.dirname(path.dirname(base)), { recursive: true, force: true }));

  it('gives runs at once directories of their own, and a released one to the next run', async () => {
    const first = await leaseBuildsDirectory(base);
    const second = await leaseBuildsDirectory(base);
    assert.ok(first && second);
    assert.equal(first.dir, path.join(base, '0'));
    assert.equal(second.dir, path.join(base, '1'));
    await first.release();
    const third = await leaseBuildsDirectory(base);
    assert.equal(third?.dir, path.join(base, '0'));
    await second.release();
    await third?.release();
    assert.deepEqual(readdirSync(base), []);
  });

  it('takes over the lock of a run whose process is gone, or one this process no longer holds', async () => {
    mkdirSync(base, { recursive: true });
    writeFileSync(path.join(base, '0.lock'), `${deadPid()} abc`);
    writeFileSync(path.join(base, '1.lock'), `${process.pid} left-by-a-failed-run`);
    const first = await leaseBuildsDirectory(base);
    const second = await leaseBuildsDirectory(base);
    assert.equal(first?.dir, path.join(base, '0'));
    assert.equal(second?.dir, path.join(base, '1'));
  });

  it('leaves alone the lock of a run that is still going', async () => {
    mkdirSync(base, { recursive: true });
    // PID 1 is always alive.
    writeFileSync(path.join(base, '0.lock'), '1 other');
    const lease = await leaseBuildsDirectory(base);
    assert.equal(lease?.dir, path.join(base, '1'));
  });

  it('keeps builds beside the object database of the git directory, none for one elsewhere', async () => {
    const gitDir = path.join(path.dirname(path.dirname(base)), 'repo', '.git');
    const lease = await leaseKeptBuilds(path.join(gitDir, 'objects'));
    assert.equal(lease?.dir, path.join(gitDir, 'gantry', 'builds', '0'));
    assert.equal(await leaseKeptBuilds(path.join(gitDir, 'shared-objects')), null);
    assert.equal(await leaseKeptBuilds(null), null);
  });
});
