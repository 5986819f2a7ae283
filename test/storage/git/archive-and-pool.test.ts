import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, it } from 'node:test';
import { execa } from '#deps/execa';
import { CatFilePool } from '../../../src/storage/git/cat-file.ts';
import type { GitArchiveFormat, GitRepository } from '../../../src/storage/git/index.ts';
import { ANN, git, gitFixture, type GitFixture } from './fixture.ts';
import { answeredWith } from '../../helpers/api-answer.ts';

describe('git storage archives', () => {
  let fixture: GitFixture;
  let repository: GitRepository;

  before(async () => {
    fixture = await gitFixture();
    await fixture.manager.create(1, { initializeWithReadme: true, defaultBranch: 'main', projectName: 'Archive', author: ANN });
    repository = fixture.manager.open(1);
    await repository.commitFiles({
      branch: 'main', message: 'Files', author: ANN,
      actions: [
        { action: 'create', file_path: 'src/main.ts', content: Buffer.from('console.log(1);\n') },
        { action: 'create', file_path: 'dir with space/é.txt', content: Buffer.from('accent\n') },
      ],
    });
    await mkdir(path.join(fixture.root, 'out'));
  });

  after(async () => fixture.cleanup());

  const listings: Array<[GitArchiveFormat, (file: string) => string[]]> = [
    ['tar', (file) => ['tar', '-tf', file]],
    ['tar.gz', (file) => ['tar', '-tzf', file]],
    ['tar.bz2', (file) => ['tar', '-tjf', file]],
    ['zip', (file) => ['unzip', '-Z1', file]],
  ];

  for (const [format, command] of listings) {
    it(`streams a ${format} archive under the prefix`, async () => {
      const file = path.join(fixture.root, 'out', `archive.${format}`);
      await pipeline(repository.archive('main', format, 'archive-main-abc'), createWriteStream(file));
      const [program, ...args] = command(file);
      const { stdout } = await execa(program!, args);
      const names = stdout.split('\n').filter((name) => !name.endsWith('/')).sort();
      assert.deepEqual(names, ['archive-main-abc/README.md', 'archive-main-abc/dir with space/é.txt', 'archive-main-abc/src/main.ts']);
    });
  }

  it('fails the stream for an unknown revision and refuses option-like input', async () => {
    const chunks: Buffer[] = [];
    await assert.rejects(async () => {
      for await (const chunk of repository.archive('no-such-ref', 'tar.gz', 'p')) chunks.push(chunk as Buffer);
    });
    assert.throws(() => repository.archive('--remote=x', 'tar', 'p'), answeredWith(400));
    assert.throws(() => repository.archive('main', 'tar', '../up'), answeredWith(400));
  });
});

describe('cat-file pool', () => {
  let fixture: GitFixture;

  before(async () => {
    fixture = await gitFixture({ idleMs: 50 });
    for (const id of [1, 2, 3]) {
      await fixture.manager.create(id, { initializeWithReadme: true, defaultBranch: 'main', projectName: `P${id}`, author: ANN });
    }
  });

  after(async () => fixture.cleanup());

  it('reuses one process per repository across many reads and pipelines concurrent ones', async () => {
    const pool = fixture.manager.pool;
    const repository = fixture.manager.open(1);
    const startedBefore = pool.started;
    for (let index = 0; index < 20; index += 1) assert.ok(await repository.commit('main'));
    const process = pool.acquire(repository.path);
    const concurrent = await Promise.all(Array.from({ length: 50 }, () => repository.commit('HEAD')));
    assert.ok(concurrent.every((commit) => commit?.title === 'Initial commit'));
    assert.equal(pool.started - startedBefore, 1);
    assert.equal(pool.acquire(repository.path), process);
  });

  it('sees refs moved after the process started', async () => {
    const repository = fixture.manager.open(1);
    const before = await repository.resolveCommit('main');
    await git(repository.path, ['update-ref', 'refs/heads/main', (await git(repository.path, ['commit-tree', '-p', before!, '-m', 'moved outside', 'main^{tree}'], '')).trim()]);
    assert.notEqual(await repository.resolveCommit('main'), before);
    assert.equal((await repository.commit('main'))?.title, 'moved outside');
  });

  it('stops idle processes and starts a new one on demand', async () => {
    const pool = fixture.manager.pool;
    const repository = fixture.manager.open(2);
    await repository.commit('main');
    assert.ok(pool.size >= 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(pool.size, 0);
    const started = pool.started;
    assert.ok(await repository.commit('main'));
    assert.equal(pool.started, started + 1);
  });

  it('caps the number of processes, stopping the least recently used', async () => {
    const pool = new CatFilePool({ maxProcesses: 2, idleMs: 60_000 });
    try {
      const paths = [1, 2, 3].map((id) => fixture.manager.open(id).path);
      for (const gitDir of paths) assert.ok(await pool.acquire(gitDir).info('HEAD'));
      assert.equal(pool.size, 2);
      // The first repository was evicted; asking again starts a process for it.
      const started = pool.started;
      await pool.acquire(paths[2]!).info('HEAD');
      assert.equal(pool.started, started);
      await pool.acquire(paths[0]!).info('HEAD');
      assert.equal(pool.started, started + 1);
    } finally {
      pool.close();
    }
  });

  it('answers missing objects with null and survives a crashed process', async () => {
    const repository = fixture.manager.open(3);
    assert.equal(await repository.commit('f'.repeat(40)), null);
    assert.equal(await repository.readBlob('0'.repeat(40)), null);
    const process = fixture.manager.pool.acquire(repository.path);
    process.close();
    assert.equal(process.alive, false);
    await assert.rejects(process.info('HEAD'));
    assert.equal((await repository.commit('main'))?.title, 'Initial commit');
  });
});
