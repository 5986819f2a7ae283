import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { CatFilePool } from '../../../src/storage/git/cat-file.ts';
import { ANN, gitFixture, type GitFixture } from './fixture.ts';

/** Settles every promise, keeping the outcome of each. */
async function outcomes<T>(promises: Array<Promise<T>>): Promise<Array<PromiseSettledResult<T>>> {
  return Promise.allSettled(promises);
}

describe('cat-file process that dies', () => {
  let fixture: GitFixture;
  let gitDir: string;
  let head: string;

  before(async () => {
    fixture = await gitFixture();
    await fixture.manager.create(1, { initializeWithReadme: true, defaultBranch: 'main', projectName: 'Recovery', author: ANN });
    gitDir = fixture.manager.open(1).path;
    head = (await fixture.manager.open(1).resolveCommit('main'))!;
  });

  after(async () => fixture.cleanup());

  it('fails only the request it died on; those queued behind it are answered by a new process', async () => {
    const pool = new CatFilePool();
    try {
      const process = pool.acquire(gitDir);
      const before = Array.from({ length: 20 }, () => process.info('main^{commit}'));
      // A bare repository has no working tree: this name makes git die ("relative path syntax").
      const killer = process.info('main:./README.md');
      const behind = Array.from({ length: 30 }, () => process.contents('main^{commit}'));
      const [early, fatal, late] = await Promise.all([outcomes(before), outcomes([killer]), outcomes(behind)]);
      assert.ok(early.every((result) => result.status === 'fulfilled' && result.value?.id === head));
      assert.equal(fatal[0]!.status, 'rejected');
      assert.match(String((fatal[0] as PromiseRejectedResult).reason), /relative path syntax/);
      assert.ok(late.every((result) => result.status === 'fulfilled' && result.value?.id === head), JSON.stringify(late.map((result) => result.status)));
      assert.equal(process.alive, false);
      const next = pool.acquire(gitDir);
      assert.notEqual(next, process);
      assert.equal(next.alive, true);
      assert.equal(pool.started, 2);
    } finally {
      pool.close();
    }
  });

  it('fails only the head of the queue when the process is killed mid-queue', async () => {
    const pool = new CatFilePool();
    try {
      const process = pool.acquire(gitDir);
      await process.info('HEAD');
      const queued = Array.from({ length: 200 }, () => process.contents('main^{commit}'));
      globalThis.process.kill(process.pid!, 'SIGKILL');
      const results = await outcomes(queued);
      const rejected = results.filter((result) => result.status === 'rejected');
      assert.equal(rejected.length, 1, `${rejected.length} of ${results.length} failed`);
      const failedAt = results.findIndex((result) => result.status === 'rejected');
      // Everything before the head was answered by the old process, everything after it by the new one.
      assert.ok(results.every((result, index) => index === failedAt || (result.status === 'fulfilled' && result.value?.id === head)));
      const next = pool.acquire(gitDir);
      assert.notEqual(next, process);
      assert.equal((await next.info('main^{commit}'))?.id, head);
    } finally {
      pool.close();
    }
  });

  it('keeps serving a repository whose reads are interleaved with process-killing ones', async () => {
    const pool = new CatFilePool();
    try {
      const reads: Array<Promise<unknown>> = [];
      const killers: Array<Promise<unknown>> = [];
      for (let index = 0; index < 300; index += 1) {
        reads.push(pool.acquire(gitDir).info('main^{commit}'));
        if (index % 25 === 0) killers.push(pool.acquire(gitDir).info('main@{1000}'));
      }
      const [readResults, killerResults] = await Promise.all([outcomes(reads), outcomes(killers)]);
      assert.ok(readResults.every((result) => result.status === 'fulfilled'));
      assert.ok(killerResults.every((result) => result.status === 'rejected'));
      assert.equal(pool.started, killers.length + 1);
    } finally {
      pool.close();
    }
  });

  it('never sends a client revision with cat-file syntax to the process', async () => {
    const repository = fixture.manager.open(1);
    assert.ok(await repository.commit('main'));
    const process = fixture.manager.pool.acquire(repository.path);
    const started = fixture.manager.pool.started;
    for (const revision of ['main:./README.md', 'main@{1000}', '@{u}', 'main:../x', 'main^{tree}']) {
      assert.equal(await repository.commit(revision), null, revision);
      assert.equal(await repository.resolveCommit(revision), null, revision);
      assert.equal(await repository.tree(revision, '', false), null, revision);
      assert.equal(await repository.blobAt(revision, 'README.md'), null, revision);
    }
    assert.equal(await repository.tree('main', './', false), null);
    assert.equal(await repository.tree('main', 'a/../..', true), null);
    assert.equal(await repository.blobAt('main', './README.md'), null);
    assert.equal(process.alive, true);
    assert.equal(fixture.manager.pool.started, started);
  });

  it('is started by the process spawner\'s helper, not forked from this process', async () => {
    const pool = new CatFilePool();
    try {
      const process = pool.acquire(gitDir);
      assert.equal((await process.info('main^{commit}'))?.id, head);
      // /proc/<pid>/stat: "pid (comm) state ppid ...".
      const stat = readFileSync(`/proc/${process.pid!}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      assert.ok(parent > 0, stat);
      assert.notEqual(parent, globalThis.process.pid);
    } finally {
      pool.close();
    }
  });
});
