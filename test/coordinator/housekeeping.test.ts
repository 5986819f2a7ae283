import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { utimesSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildCiServices } from '../../src/coordinator/wiring-ci.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

const LEASE_TAKEN = 'Somebody already triggered housekeeping for this resource in the past 1440 minutes';

describe('POST /projects/:id/housekeeping', () => {
  let gantry: TestCoordinator;
  let developer: TestUser;
  let project: ProjectRecord;
  let gitDir: string;

  const git = (...args: string[]): string => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', timeout: 60_000 }).trim();
  const looseCount = (): number => Number(/^count: (\d+)$/m.exec(git('count-objects', '-v'))?.[1]);
  const housekeeping = (body?: unknown, token?: string | null) => gantry.api('POST', `/projects/${project.id}/housekeeping`, { ...(body === undefined ? {} : { body }), ...(token === undefined ? {} : { token }) });
  /** Runs the queued tasks as another coordinator on the same database would (this one runs none). */
  const runQueuedTasks = () => buildCiServices(gantry.coordinator.context, { runTasks: false }).taskWorker.drain();

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { runTasks: false } } });
    developer = await makeUser(gantry, 'dev');
    const group = await makeGroup(gantry, 'kept');
    project = await makeProjectWithRepository(gantry, group.id, 'app', { withReadme: true });
    await addMember(gantry, { type: 'project', id: project.id }, developer.id, 30);
    for (const file of ['a.txt', 'b.txt']) {
      const created = await gantry.api('POST', `/projects/${project.id}/repository/files/${file}`, { body: { branch: 'main', content: file, commit_message: `add ${file}` } });
      assert.equal(created.status, 201, created.text);
    }
    gitDir = gantry.coordinator.context.repositories.open(project.id).path;
  });
  after(() => gantry.close());

  it('queues a gc (201, the job id as a JSON string), refuses a second request while it is queued, and packs the loose objects when it runs', async () => {
    assert.ok(looseCount() > 0, 'the commits left loose objects');
    const first = await housekeeping();
    assert.equal(first.status, 201, first.text);
    assert.match(String(first.headers['content-type']), /^application\/json/);
    assert.match(first.text, /^"[0-9a-f]{24}"$/);
    const second = await housekeeping({ task: 'prune' });
    assert.equal(second.status, 409);
    assert.deepEqual(second.body, { message: LEASE_TAKEN });

    await runQueuedTasks();
    assert.equal(looseCount(), 0);
    assert.match(git('count-objects', '-v'), /^packs: [1-9]/m);
    // The task ended the lease: housekeeping can be asked for again.
    assert.equal((await housekeeping({ task: 'eager' })).status, 201);
    await runQueuedTasks();
  });

  it('prune removes old unreachable objects and keeps recent ones (a push in flight)', async () => {
    const old = execFileSync('git', ['--git-dir', gitDir, 'hash-object', '-w', '--stdin'], { input: 'unreachable and old\n', encoding: 'utf8', timeout: 30_000 }).trim();
    const recent = execFileSync('git', ['--git-dir', gitDir, 'hash-object', '-w', '--stdin'], { input: 'unreachable and recent\n', encoding: 'utf8', timeout: 30_000 }).trim();
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(path.join(gitDir, 'objects', old.slice(0, 2), old.slice(2)), twoHoursAgo, twoHoursAgo);

    assert.equal((await housekeeping({ task: 'prune' })).status, 201);
    await runQueuedTasks();
    const exists = (id: string): boolean => {
      try {
        git('cat-file', '-e', id);
        return true;
      } catch {
        return false;
      }
    };
    assert.equal(exists(old), false);
    assert.equal(exists(recent), true);
    assert.equal(git('fsck', '--connectivity-only', '--no-dangling'), '');
    assert.equal(git('rev-list', '--count', 'main'), '3');
  });

  it('answers 401 without a token, 403 below Maintainer, 404 for unknown projects and 400 for an unknown task', async () => {
    assert.equal((await housekeeping(undefined, null)).status, 401);
    assert.deepEqual((await housekeeping(undefined, developer.token)).body, { message: '403 Forbidden' });
    assert.deepEqual((await gantry.api('POST', '/projects/999999/housekeeping')).body, { message: '404 Project Not Found' });
    const bad = await housekeeping({ task: 'everything' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { error: 'task does not have a valid value' });
  });
});
