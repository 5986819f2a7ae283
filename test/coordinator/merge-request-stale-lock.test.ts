import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import { LINK_ISSUES_TASK } from '../../src/coordinator/services/planning/merge-requests/issue-links.ts';
import { STALE_MERGE_LOCKS_TASK, STALE_MERGE_LOCK_MS } from '../../src/coordinator/services/planning/merge-requests/stale-merge-locks.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startMergeRequestFixture, type MergeRequestFixture } from './merge-requests-fixtures.ts';

/**
 * A merge lock left by a coordinator that died mid-merge (state `locked`, nobody to finish it) is
 * released by the stale-lock sweep once older than STALE_MERGE_LOCK_MS, as GitLab's
 * StuckMergeJobsWorker unlocks stuck merges; a lock younger than that is a merge still running.
 */
describe('stale merge locks', () => {
  let fixture: MergeRequestFixture;

  const stores = () => fixture.gantry.coordinator.context.stores;
  const merge = (iid: number) => fixture.gantry.api('PUT', `/projects/${fixture.project.id}/merge_requests/${iid}/merge`);
  /** What a merge's lock leaves when its coordinator dies before the git write ends: `locked`, dated `ageMs` ago. */
  const lockAsOf = async (iid: number, ageMs: number) => {
    // A new request's merge status check and issue links run in the background: one that lands after the lock would date it anew.
    await waitUntil(async () => {
      const current = (await stores().mergeRequests.findByIid(fixture.project.id, iid))!;
      const linking = await fixture.gantry.coordinator.context.db.selectFrom('tasks').select('id').where('kind', '=', LINK_ISSUES_TASK).execute();
      return linking.length === 0 && (current.merge_status === 'can_be_merged' || current.merge_status === 'cannot_be_merged');
    }, "the new request's background work");
    const request = (await stores().mergeRequests.findByIid(fixture.project.id, iid))!;
    await stores().mergeRequests.update(request.id, { state: 'locked', updated_at: new Date(Date.now() - ageMs).toISOString() }, {});
  };

  before(async () => {
    fixture = await startMergeRequestFixture();
    // The sweep a coordinator asks for at start must be over before a test makes a stale lock, or it may take that lock first.
    await waitUntil(async () => (await stores().tasks.totals()).some((totals) => totals.kind === STALE_MERGE_LOCKS_TASK && totals.processed > 0), "the start-up's stale lock sweep");
  });
  after(() => fixture.close());

  it('releases a lock older than the stale age, keeps a younger one, and the released request merges', async () => {
    await fixture.branch('stuck');
    await fixture.branch('running');
    const stuck = Number((await fixture.open({ source_branch: 'stuck', target_branch: 'main', title: 'Stuck' })).iid);
    const running = Number((await fixture.open({ source_branch: 'running', target_branch: 'main', title: 'Running' })).iid);
    await lockAsOf(stuck, STALE_MERGE_LOCK_MS + 60_000);
    await lockAsOf(running, 60_000);
    assert.equal((await merge(stuck)).status, 405, 'locked: a merge is in progress as far as anyone knows');

    const released = await ciServicesOf(fixture.gantry.coordinator).staleMergeLocks.sweep();
    assert.equal(released, 1);
    const shown = await fixture.gantry.api('GET', `/projects/${fixture.project.id}/merge_requests/${stuck}`);
    assert.equal(shown.json.state, 'opened');
    assert.equal(shown.json.merge_error, 'The merge was interrupted; merge again');
    const stillLocked = await fixture.gantry.api('GET', `/projects/${fixture.project.id}/merge_requests/${running}`);
    assert.equal(stillLocked.json.state, 'locked');

    const merged = await merge(stuck);
    assert.equal(merged.status, 200, merged.text);
    assert.equal(merged.json.state, 'merged');
    assert.equal(merged.json.merge_error, null);
    assert.equal(await ciServicesOf(fixture.gantry.coordinator).staleMergeLocks.sweep(), 0, 'a merged request is not touched');
  });

  it('marks merged a stale lock whose head is already on the target branch (the dead coordinator moved it)', async () => {
    const head = await fixture.branch('landed');
    const iid = Number((await fixture.open({ source_branch: 'landed', target_branch: 'main', title: 'Landed' })).iid);
    await lockAsOf(iid, STALE_MERGE_LOCK_MS + 60_000);
    // What the dead merge did before it could record it: main fast-forwarded to the head.
    const repository = fixture.gantry.coordinator.context.repositories.open(fixture.project.id);
    await promisify(execFile)('git', ['--git-dir', repository.path, 'update-ref', 'refs/heads/main', head]);

    assert.equal(await ciServicesOf(fixture.gantry.coordinator).staleMergeLocks.sweep(), 1);
    const shown = await fixture.gantry.api('GET', `/projects/${fixture.project.id}/merge_requests/${iid}`);
    assert.deepEqual([shown.json.state, shown.json.merge_error, typeof shown.json.merged_at], ['merged', null, 'string']);
  });

  it('a merge dates its lock when it takes it, not when the request was last edited', async () => {
    await fixture.branch('fresh'); // adds fresh.txt
    const clash = { branch: 'main', commit_message: 'fresh.txt on main', actions: [{ action: 'create', file_path: 'fresh.txt', content: 'main\n' }] };
    assert.equal((await fixture.gantry.api('POST', `/projects/${fixture.project.id}/repository/commits`, { body: clash })).status, 201);
    const iid = Number((await fixture.open({ source_branch: 'fresh', target_branch: 'main', title: 'Fresh' })).iid);
    const request = (await stores().mergeRequests.findByIid(fixture.project.id, iid))!;
    const longAgo = new Date(Date.now() - 2 * STALE_MERGE_LOCK_MS).toISOString();
    await stores().mergeRequests.update(request.id, { updated_at: longAgo }, {});
    const startedAt = new Date().toISOString();
    // The merge's checks see a clean merge, as when main moved between them and the git write: the
    // write finds the conflict after the lock was taken, and the failed merge gives the lock back as it was dated.
    const { repositories } = fixture.gantry.coordinator.context;
    const open = repositories.open.bind(repositories);
    repositories.open = (projectId) => {
      const repository = open(projectId);
      return new Proxy(repository, {
        get: (target, property) => {
          if (property === 'mergeTree') return async () => ({ clean: true, tree: '' });
          const value: unknown = Reflect.get(target, property);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    };
    try {
      assert.equal((await merge(iid)).status, 406);
    } finally {
      repositories.open = open;
    }
    const after = (await stores().mergeRequests.findByIid(fixture.project.id, iid))!;
    assert.equal(after.state, 'opened');
    assert.ok(after.updated_at >= startedAt, `the lock was dated ${after.updated_at}, not when it was taken`);
  });
});
