import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MergeRequestPermissions } from '../../src/coordinator/services/access/merge-request-permissions.ts';
import { announceMergeRequestMerged, announceMergeRequestSaved, type MergeRequestSnapshot } from '../../src/coordinator/services/planning/merge-requests/observers.ts';
import { MergeRequestSystemNotes } from '../../src/coordinator/services/planning/merge-requests/system-notes.ts';
import { SystemNotes } from '../../src/coordinator/services/planning/system-notes.ts';
import { MergeRequestTodos } from '../../src/coordinator/services/planning/todos-merge-request-observer.ts';
import type { MergeRequestRecord } from '../../src/storage/types-merge-requests.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';
import { storeMergeRequest } from './merge-request-fixtures.ts';

describe('activity on merge requests: award emoji, subscriptions, todos, time tracking, system notes', () => {
  let fx: CiSettingsFixture;
  const url = (iid: number, suffix: string) => `/projects/${fx.project.id}/merge_requests/${iid}${suffix}`;
  const open = (title: string, fields: { description?: string; assigneeIds?: number[]; reviewerIds?: number[] } = {}) => storeMergeRequest(fx.gantry, fx.project.id, fx.developer.id, { title, ...fields });
  const stores = () => fx.gantry.coordinator.context.stores;

  before(async () => {
    fx = await startCiSettingsFixture();
  });
  after(() => fx.close());

  it('awards emoji on a request and on its notes, counts its votes, and refuses a system note', async () => {
    const request = await open('Awarded');
    const award = await fx.gantry.api('POST', url(request.iid, '/award_emoji'), { body: { name: '+1' }, token: fx.guest.token });
    assert.equal(award.status, 201, award.text);
    assert.deepEqual([award.json.name, award.json.awardable_id, award.json.awardable_type], ['thumbsup', request.id, 'MergeRequest']);
    assert.equal((await fx.gantry.api('POST', url(request.iid, '/award_emoji'), { body: { name: 'thumbsup' }, token: fx.guest.token })).status, 404);
    await fx.gantry.api('POST', url(request.iid, '/award_emoji'), { body: { name: 'thumbsdown' }, token: fx.reporter.token });
    assert.deepEqual((await fx.gantry.api('GET', url(request.iid, '/award_emoji'))).list.map((listed) => listed.name), ['thumbsup', 'thumbsdown']);
    const votes = await stores().awardEmoji.votesOf([request.id], 'MergeRequest');
    assert.deepEqual(votes.get(request.id), { upvotes: 1, downvotes: 1 });
    assert.equal((await stores().awardEmoji.votesOf([request.id])).size, 0, 'an issue of the same id has none');

    const note = await fx.gantry.api('POST', url(request.iid, '/notes'), { body: { body: 'nice' } });
    const onNote = await fx.gantry.api('POST', url(request.iid, `/notes/${note.json.id}/award_emoji`), { body: { name: 'tada' }, token: fx.guest.token });
    assert.deepEqual([onNote.status, onNote.json.awardable_type, onNote.json.awardable_id], [201, 'Note', note.json.id]);
    const taken = await fx.gantry.api('DELETE', url(request.iid, `/notes/${note.json.id}/award_emoji/${onNote.json.id}`), { token: fx.developer.token });
    assert.equal(taken.status, 401);
    assert.equal((await fx.gantry.api('DELETE', url(request.iid, `/notes/${note.json.id}/award_emoji/${onNote.json.id}`), { token: fx.guest.token })).status, 204);

    await fx.gantry.api('POST', url(request.iid, '/time_estimate'), { body: { duration: '1h' }, token: fx.developer.token });
    const [system] = (await fx.gantry.api('GET', url(request.iid, '/notes'))).list;
    const refused = await fx.gantry.api('POST', url(request.iid, `/notes/${system?.id}/award_emoji`), { body: { name: 'tada' } });
    assert.deepEqual([system?.system, refused.status, refused.json], [true, 404, { message: '404 Award Emoji Awardable cannot be awarded emoji Not Found' }]);
  });

  it('subscribes and unsubscribes (304 when nothing changes), its author and reviewers subscribed by default', async () => {
    const request = await open('Followed', { reviewerIds: [fx.reporter.id] });
    assert.equal((await fx.gantry.api('POST', url(request.iid, '/subscribe'), { token: fx.developer.token })).status, 304);
    assert.equal((await fx.gantry.api('POST', url(request.iid, '/subscribe'), { token: fx.reporter.token })).status, 304);
    const off = await fx.gantry.api('POST', url(request.iid, '/unsubscribe'), { token: fx.developer.token });
    assert.deepEqual([off.status, off.json.iid, off.json.subscribed, off.json.web_url], [201, request.iid, false, `http://gantry.test/ci/app/-/merge_requests/${request.iid}`]);
    assert.equal((await fx.gantry.api('POST', url(request.iid, '/unsubscribe'), { token: fx.developer.token })).status, 304);
    const on = await fx.gantry.api('POST', url(request.iid, '/subscribe'), { token: fx.guest.token });
    assert.deepEqual([on.status, on.json.subscribed], [201, true]);
    assert.deepEqual((await fx.gantry.api('POST', url(9999, '/subscribe'))).json, { message: '404 Merge Request Not Found' });
    assert.equal((await fx.gantry.api('POST', url(request.iid, '/subscribe'), { token: fx.stranger.token })).status, 404);
  });

  it('marks a request as a todo (201, then 304), lists it with type=MergeRequest, and drops it once merge requests are off', async () => {
    const request = await open('To do');
    const marked = await fx.gantry.api('POST', url(request.iid, '/todo'), { token: fx.guest.token });
    assert.equal(marked.status, 201, marked.text);
    assert.deepEqual([marked.json.action_name, marked.json.target_type, marked.json.target_url], ['marked', 'MergeRequest', `http://gantry.test/ci/app/-/merge_requests/${request.iid}`]);
    const target = marked.json.target as Record<string, unknown>;
    assert.deepEqual([target.id, target.iid, target.project_id, target.title, target.state], [request.id, request.iid, fx.project.id, 'To do', 'opened']);
    assert.equal((await fx.gantry.api('POST', url(request.iid, '/todo'), { token: fx.guest.token })).status, 304);
    await fx.gantry.api('POST', `/projects/${fx.project.id}/issues`, { body: { title: 'Issue todo', assignee_ids: [fx.guest.id] } });
    const types = async (query: string) => (await fx.gantry.api('GET', `/todos${query}`, { token: fx.guest.token })).list.map((todo) => todo.target_type);
    assert.deepEqual(await types(''), ['Issue', 'MergeRequest']);
    assert.deepEqual(await types('?type=MergeRequest'), ['MergeRequest']);
    assert.deepEqual(await types('?type=Issue'), ['Issue']);
    await fx.gantry.api('PUT', `/projects/${fx.project.id}`, { body: { merge_requests_enabled: false } });
    try {
      assert.deepEqual(await types(''), ['Issue']);
    } finally {
      await fx.gantry.api('PUT', `/projects/${fx.project.id}`, { body: { merge_requests_enabled: true } });
    }
    assert.deepEqual(await types('?type=MergeRequest'), ['MergeRequest']);
  });

  it('tracks time (Developers and up) with system notes, and answers time_stats', async () => {
    const request = await open('Timed');
    const reporter = await fx.gantry.api('POST', url(request.iid, '/time_estimate'), { body: { duration: '3h' }, token: fx.reporter.token });
    assert.equal(reporter.status, 403);
    assert.equal((await fx.gantry.api('POST', url(request.iid, '/time_estimate'), { body: { duration: '3h' }, token: fx.developer.token })).status, 200);
    const spent = await fx.gantry.api('POST', url(request.iid, '/add_spent_time'), { body: { duration: '1h30m' }, token: fx.developer.token });
    assert.deepEqual([spent.status, spent.json], [201, { time_estimate: 10800, total_time_spent: 5400, human_time_estimate: '3h', human_total_time_spent: '1h 30m' }]);
    const over = await fx.gantry.api('POST', url(request.iid, '/add_spent_time'), { body: { duration: '-2h' }, token: fx.developer.token });
    assert.equal(over.status, 400);
    assert.equal((await fx.gantry.api('POST', url(request.iid, '/reset_spent_time'), { token: fx.developer.token })).json.total_time_spent, 0);
    assert.equal((await fx.gantry.api('GET', url(request.iid, '/time_stats'), { token: fx.guest.token })).json.time_estimate, 10800);
    const bodies = (await fx.gantry.api('GET', url(request.iid, '/notes?sort=asc'))).list.map((note) => note.body);
    assert.deepEqual(bodies, ['changed time estimate to 3h', 'added 1h 30m of time spent', 'removed time spent']);
    const logs = await fx.gantry.coordinator.context.db.selectFrom('timelogs').select(['issuable_type', 'time_spent']).where('issuable_id', '=', request.id).where('issuable_type', '=', 'MergeRequest').execute();
    assert.deepEqual(logs.map((log) => log.time_spent), [5400, -5400]);
  });

  it('writes GitLab\'s system notes and todos for a saved, merged and auto-merged request', async () => {
    const { users, todos, notes, milestones } = stores();
    const actor = (await users.findByIds([fx.maintainer.id]))[0]!;
    const project = fx.project;
    const systemNotes = new MergeRequestSystemNotes({ systemNotes: new SystemNotes({ notes }), users, milestones });
    const mergeRequestTodos = new MergeRequestTodos({ todos, users, mergeRequestPermissions: new MergeRequestPermissions(fx.gantry.coordinator.context.permissions) });
    const observers = [systemNotes, mergeRequestTodos];
    const snapshot = (record: MergeRequestRecord, assigneeIds: number[], reviewerIds: number[]): MergeRequestSnapshot => ({ record, labels: [], assigneeIds, reviewerIds });
    const created = await open('Draft: Feature', { description: '@ci-guest please look, cc @ci-stranger' });
    const at = new Date().toISOString();
    await announceMergeRequestSaved(observers, { project, actor, before: null, after: snapshot(created, [fx.developer.id], [fx.reporter.id]), at });
    const changed = { ...created, title: 'Feature done', target_branch: 'stable', discussion_locked: true };
    await announceMergeRequestSaved(observers, { project, actor, before: snapshot(created, [fx.developer.id], [fx.reporter.id]), after: snapshot(changed, [], [fx.reporter.id, fx.guest.id]), at });
    await announceMergeRequestMerged(observers, { project, actor, mergeRequest: changed, at });
    await systemNotes.autoMergeEnabled(changed, actor, 'abc123');
    await systemNotes.autoMergeCanceled(changed, actor);
    const bodies = (await fx.gantry.api('GET', url(created.iid, '/notes?sort=asc'))).list.map((note) => note.body);
    assert.deepEqual(bodies, [
      'marked this merge request as **ready**',
      'changed title from **{-Draft: Featur-}e** to **{+Feature don+}e**',
      'locked the discussion in this merge request',
      'changed target branch from `main` to `stable`',
      'unassigned @ci-developer',
      'requested review from @ci-guest',
      'merged',
      'enabled an automatic merge when the pipeline for abc123 succeeds',
      'canceled the automatic merge',
    ]);
    const actions = async (token: string) => (await fx.gantry.api('GET', '/todos?type=MergeRequest', { token })).list.filter((todo) => (todo.target as { id: number }).id === created.id).map((todo) => todo.action_name);
    assert.deepEqual(await actions(fx.developer.token), ['assigned']);
    assert.deepEqual(await actions(fx.reporter.token), ['review_requested']);
    assert.deepEqual(await actions(fx.guest.token), ['directly_addressed'], 'one pending todo: the review request comes after the mention');
    assert.deepEqual(await actions(fx.stranger.token), [], 'no todo for someone who cannot read the request');
  });

  it('gives todos for mentions in a note and marks the writer\'s own todos done', async () => {
    const request = await open('Discussed');
    const note = await fx.gantry.api('POST', url(request.iid, '/notes'), { body: { body: 'what do you think, @ci-reporter?' }, token: fx.developer.token });
    const [todo] = (await fx.gantry.api('GET', '/todos?type=MergeRequest&action=mentioned', { token: fx.reporter.token })).list;
    assert.deepEqual([todo?.body, todo?.target_url], ['what do you think, @ci-reporter?', `http://gantry.test/ci/app/-/merge_requests/${request.iid}#note_${note.json.id}`]);
    await fx.gantry.api('POST', url(request.iid, '/notes'), { body: { body: 'agreed' }, token: fx.reporter.token });
    assert.deepEqual((await fx.gantry.api('GET', '/todos?type=MergeRequest&action=mentioned', { token: fx.reporter.token })).list, []);
  });
});
