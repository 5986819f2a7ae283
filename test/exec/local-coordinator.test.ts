/**
 * The coordinator `runner exec` starts in its process: only the API the runner and exec call
 * (CoordinatorOptions `routes: 'local-run'`), and the snapshot's objects lent to the project's
 * bare repository instead of pushed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startLocalCoordinator, type LocalCoordinator } from '../../src/exec/session.ts';
import { pushProject } from '../../src/exec/project-placement.ts';
import { readHead, snapshotCommit } from '../../src/exec/git.ts';
import { GitRepositoryManager } from '../../src/storage/git/index.ts';
import { git, workingTree, writeFiles } from '../cli/exec-helpers.ts';

describe('the local coordinator of runner exec', () => {
  let local: LocalCoordinator;
  let tree: string;
  before(async () => {
    local = await startLocalCoordinator();
    tree = workingTree({ 'a.txt': 'committed\n' });
  });
  after(async () => {
    await local.close();
    rmSync(tree, { recursive: true, force: true });
  });

  it('mounts the runner protocol, projects and CI variables, and none of the other areas', async () => {
    const mounted = new Set(local.coordinator.routes.map((route) => `${route.method} ${route.url}`));
    for (const route of ['POST /api/v4/runners', 'POST /api/v4/jobs/request', 'PUT /api/v4/jobs/:id', 'PATCH /api/v4/jobs/:id/trace', 'POST /api/v4/projects', 'POST /api/v4/projects/:id/variables']) {
      assert.ok(mounted.has(route), `${route} is mounted`);
    }
    assert.ok(!mounted.has('GET /api/v4/projects/:id/issues'), 'the planning area is not mounted');
    assert.ok(!mounted.has('GET /api/v4/version'), 'the instance area is not mounted');
    const answer = await fetch(`${local.url}/api/v4/projects/1/issues`, { headers: { 'PRIVATE-TOKEN': local.rootToken } });
    assert.equal(answer.status, 404);
  });

  it('lends the working tree\'s objects to the project\'s repository: the snapshot is there, unpushed', async () => {
    writeFiles(tree, { 'b.txt': 'uncommitted\n' });
    const head = await readHead(tree);
    const snapshot = await snapshotCommit(tree, head, false);
    const { sha } = snapshot;
    const project = await pushProject(local, { root: tree, snapshot, identity: { groups: [], path: 'lent' }, defaultBranch: 'main', ref: { name: 'main', kind: 'branch' } });
    const { repositories } = local.coordinator.context;
    assert.ok(repositories instanceof GitRepositoryManager);
    assert.equal(await repositories.open(project.id).resolveCommit('refs/heads/main'), sha);
    const objects = path.join(repositories.repositoryPath(project.id), 'objects');
    assert.equal(readFileSync(path.join(objects, 'info', 'alternates'), 'utf8'), `${path.join(tree, '.git', 'objects')}\n`);
    // Nothing was copied: the repository holds no object of its own.
    assert.equal(execFileSync('find', [objects, '-type', 'f', '-not', '-path', '*/info/*'], { encoding: 'utf8' }), '');
    assert.equal(git(tree, 'status', '--porcelain'), '?? b.txt\n');
  });
});
