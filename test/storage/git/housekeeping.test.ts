import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../../src/shared/logger.ts';
import { createRepositoryManager, type GitRepositoryManager } from '../../../src/storage/git/index.ts';
import { waitUntil } from '../../helpers/bounded.ts';

const AUTHOR = { name: 'Ann', email: 'ann@example.com' };

describe('repository housekeeping', () => {
  let root: string;
  let manager: GitRepositoryManager;
  const warnings: Array<{ msg: string; gitDir?: string }> = [];

  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'gantry-housekeeping-'));
    const logger = createLogger({ level: 'warn', pretty: false, destination: { write: (line: string) => void warnings.push(JSON.parse(line) as { msg: string; gitDir?: string }) } });
    manager = createRepositoryManager({ root, logger, housekeeping: { delayMs: 20 } });
    await manager.create(1, { initializeWithReadme: true, defaultBranch: 'main', projectName: 'one', author: AUTHOR });
  });
  after(async () => {
    await manager.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('writes a commit-graph once writes have been quiet', async () => {
    const graphs = path.join(root, '1.git', 'objects', 'info', 'commit-graphs');
    assert.equal(existsSync(graphs), false);
    manager.scheduleHousekeeping(1);
    await waitUntil(() => existsSync(graphs), 'a commit-graph after the scheduled housekeeping', { timeoutMs: 30_000 });
  });

  it('repacks with a bitmap on gc and keeps counting commits right', async () => {
    const repository = manager.open(1);
    await repository.commitFiles({ branch: 'main', message: 'Second', author: AUTHOR, actions: [{ action: 'create', file_path: 'b.txt', content: Buffer.from('b\n') }] });
    await manager.runHousekeeping(1, { gc: true });
    const packs = path.join(root, '1.git', 'objects', 'pack');
    assert.ok(readdirSync(packs).some((name) => name.endsWith('.bitmap')), 'a reachability bitmap exists');
    assert.equal(await repository.countCommits({ ref: 'main' }), 2);
    assert.equal(await repository.countCommits({ ref: 'main', path: 'b.txt' }), 1);
  });

  it('never throws for a repository that is gone: the failure is logged, and nothing is recreated', async () => {
    await manager.remove(1);
    const gitDir = path.join(root, '1.git');
    assert.equal(existsSync(gitDir), false);
    warnings.length = 0;
    await assert.doesNotReject(manager.runHousekeeping(1));
    await assert.doesNotReject(manager.runHousekeeping(1, { gc: true }));
    assert.deepEqual(
      warnings.map((line) => [line.msg, line.gitDir]),
      [['repository housekeeping failed', gitDir], ['repository housekeeping failed', gitDir]],
    );
    assert.equal(existsSync(gitDir), false, 'housekeeping does not bring a removed repository back');
  });
});
