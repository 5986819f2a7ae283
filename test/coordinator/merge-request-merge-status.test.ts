import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import { MERGE_STATUS_CHECK_TASK } from '../../src/coordinator/services/planning/merge-requests/merge-status.ts';
import { startTestCoordinator } from '../helpers/coordinator.ts';
import { startMergeRequestFixture, type MergeRequestFixture } from './merge-requests-fixtures.ts';

/**
 * merge_status as GitLab moves it: `unchecked` after either branch moved (`cannot_be_merged_recheck`
 * for a request that could not merge), `checking` while the check runs (`cannot_be_merged_rechecking`
 * for a recheck, shown as `checking`), then `can_be_merged` or
 * `cannot_be_merged`; detailed_merge_status follows. Tasks do not run on their own here
 * (`runTasks: false`): the test runs the check task's work itself, so every state is seen.
 */
describe('merge_status lifecycle', () => {
  let fixture: MergeRequestFixture;
  let iid: number;

  const commit = async (branch: string, action: 'create' | 'update', file: string, content: string) => {
    const body = { branch, commit_message: `${action} ${file} on ${branch}`, actions: [{ action, file_path: file, content }] };
    const answer = await fixture.gantry.api('POST', `/projects/${fixture.project.id}/repository/commits`, { body });
    assert.equal(answer.status, 201, answer.text);
  };
  const shown = async () => {
    const answer = await fixture.gantry.api('GET', `/projects/${fixture.project.id}/merge_requests/${iid}`);
    assert.equal(answer.status, 200, answer.text);
    return [answer.json.merge_status, answer.json.detailed_merge_status, answer.json.has_conflicts];
  };
  const stored = async () => (await fixture.gantry.coordinator.context.stores.mergeRequests.findByIid(fixture.project.id, iid))!;
  const check = () => ciServicesOf(fixture.gantry.coordinator).mergeStatusCheck;
  const runCheckTask = async () => check().process({ mergeRequestId: (await stored()).id });

  before(async () => {
    fixture = await startMergeRequestFixture(await startTestCoordinator({ extra: { ci: { runTasks: false } } }));
    await fixture.branch('clash'); // adds clash.txt
    await commit('main', 'create', 'clash.txt', 'from main\n');
    iid = Number((await fixture.open({ source_branch: 'clash', target_branch: 'main', title: 'Clash' })).iid);
  });
  after(() => fixture.close());

  it('is unchecked when opened, checking while the check runs, cannot_be_merged on a conflict', async () => {
    assert.deepEqual(await shown(), ['unchecked', 'unchecked', false]);
    const checking = await check().markChecking(await stored());
    assert.equal(checking?.merge_status, 'checking');
    assert.deepEqual(await shown(), ['checking', 'checking', false]);
    assert.equal(await check().markChecking(await stored()), undefined, 'a check already running is not marked again');
    await runCheckTask();
    assert.deepEqual(await shown(), ['cannot_be_merged', 'broken_status', true]);
  });

  it('a push to the source of a request that could not merge: cannot_be_merged_recheck, then checked again', async () => {
    await commit('clash', 'create', 'more.txt', 'more\n');
    assert.deepEqual(await shown(), ['cannot_be_merged_recheck', 'unchecked', false]);
    await check().markChecking(await stored());
    assert.equal((await stored()).merge_status, 'cannot_be_merged_rechecking', 'a recheck is kept apart from a first check');
    assert.deepEqual(await shown(), ['checking', 'checking', false], 'shown as checking, as GitLab shows it');
    await runCheckTask();
    assert.deepEqual(await shown(), ['cannot_be_merged', 'broken_status', true], 'still conflicting');

    await commit('clash', 'update', 'clash.txt', 'from main\n');
    assert.equal((await stored()).merge_status, 'cannot_be_merged_recheck');
    await runCheckTask();
    assert.deepEqual(await shown(), ['can_be_merged', 'mergeable', false], 'the branch now agrees with main');
  });

  it('a push during a recheck keeps that the request could not merge', async () => {
    await commit('clash', 'update', 'clash.txt', 'conflicting again\n');
    await runCheckTask();
    assert.equal((await stored()).merge_status, 'cannot_be_merged');
    await commit('clash', 'create', 'during.txt', 'x\n');
    await check().markChecking(await stored());
    assert.equal((await stored()).merge_status, 'cannot_be_merged_rechecking');
    await commit('clash', 'create', 'during-2.txt', 'y\n');
    assert.equal((await stored()).merge_status, 'cannot_be_merged_recheck', 'not unchecked: it could not merge');
    await commit('clash', 'update', 'clash.txt', 'from main\n');
    await runCheckTask();
    assert.deepEqual(await shown(), ['can_be_merged', 'mergeable', false]);
  });

  it('with_merge_status_recheck queues a check of listed requests not checked yet, for Developers and up', async () => {
    const { db } = fixture.gantry.coordinator.context;
    const pendingChecks = async () => (await db.selectFrom('tasks').select('payload').where('kind', '=', MERGE_STATUS_CHECK_TASK).where('status', '=', 'pending').execute()).length;
    const list = async (query: string, token?: string) => {
      const answer = await fixture.gantry.api('GET', `/projects/${fixture.project.id}/merge_requests?${query}`, { token });
      assert.equal(answer.status, 200, answer.text);
    };
    await commit('main', 'create', 'moved.txt', 'moved\n');
    assert.equal((await stored()).merge_status, 'unchecked');
    await db.deleteFrom('tasks').where('kind', '=', MERGE_STATUS_CHECK_TASK).execute();
    await list('with_merge_status_recheck=true', fixture.reporter.token);
    await list('');
    await list('with_merge_status_recheck=true&view=simple');
    assert.equal(await pendingChecks(), 0, 'no check for a Reporter, without the parameter or with view=simple');
    await list('with_merge_status_recheck=true', fixture.developer.token);
    assert.equal(await pendingChecks(), 1);
    await runCheckTask();
    await db.deleteFrom('tasks').where('kind', '=', MERGE_STATUS_CHECK_TASK).execute();
    await list('with_merge_status_recheck=true', fixture.developer.token);
    assert.equal(await pendingChecks(), 0, 'a decided status is not checked again');
  });

  it('a push to the target of a mergeable request: unchecked, and the check task decides it', async () => {
    await commit('main', 'create', 'unrelated.txt', 'x\n');
    assert.deepEqual(await shown(), ['unchecked', 'unchecked', false]);
    await runCheckTask();
    assert.deepEqual(await shown(), ['can_be_merged', 'mergeable', false]);
  });

  it('a closed request is neither marked nor checked', async () => {
    const closed = await fixture.gantry.api('PUT', `/projects/${fixture.project.id}/merge_requests/${iid}`, { body: { state_event: 'close' } });
    assert.equal(closed.status, 200, closed.text);
    await fixture.gantry.coordinator.context.stores.mergeRequests.update((await stored()).id, { merge_status: 'unchecked' }, {});
    await runCheckTask();
    assert.equal((await stored()).merge_status, 'unchecked');
    assert.equal((await shown())[1], 'not_open');
  });
});
