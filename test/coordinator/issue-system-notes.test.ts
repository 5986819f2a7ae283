import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assigneeChange, labelChange, milestoneReference, titleChange } from '../../src/coordinator/services/planning/issue-system-notes.ts';
import type { UserRecord } from '../../src/storage/types.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';

describe('system notes of issue changes', () => {
  let fx: CiSettingsFixture;
  let iid: number;
  const issue = () => `/projects/${fx.project.id}/issues/${iid}`;
  /** The system notes an update adds, oldest first. */
  const update = async (body: Record<string, unknown>) => {
    const before = (await fx.gantry.api('GET', `${issue()}/notes?sort=asc&per_page=100`)).list.length;
    const updated = await fx.gantry.api('PUT', issue(), { body, token: fx.maintainer.token });
    assert.equal(updated.status, 200, updated.text);
    const after = (await fx.gantry.api('GET', `${issue()}/notes?sort=asc&per_page=100`)).list.slice(before);
    for (const note of after) assert.deepEqual([note.system, (note.author as Record<string, unknown>).id], [true, fx.maintainer.id]);
    return after.map((note) => note.body);
  };
  const labelId = async (name: string) => Number((await fx.gantry.api('POST', `/projects/${fx.project.id}/labels`, { body: { name, color: 'red' } })).json.id);

  before(async () => {
    fx = await startCiSettingsFixture();
    const created = await fx.gantry.api('POST', `/projects/${fx.project.id}/issues`, { body: { title: 'Crash on start', labels: 'first', due_date: '2030-01-02' } });
    iid = Number(created.json.iid);
  });
  after(() => fx.close());

  it('writes none for a new issue, nor for an update that changes nothing', async () => {
    assert.deepEqual((await fx.gantry.api('GET', `${issue()}/notes`)).list, []);
    assert.deepEqual(await update({ title: 'Crash on start' }), []);
  });

  it('words state, title, description, lock, due date and confidentiality as GitLab does', async () => {
    assert.deepEqual(await update({ state_event: 'close' }), ['closed']);
    assert.deepEqual(await update({ state_event: 'reopen' }), ['reopened']);
    assert.deepEqual(await update({ title: 'Crash on stop' }), ['changed title from **Crash on st{-art-}** to **Crash on st{+op+}**']);
    assert.deepEqual(await update({ description: 'Steps' }), ['changed the description']);
    assert.deepEqual(await update({ discussion_locked: true }), ['locked the discussion in this issue']);
    assert.deepEqual(await update({ discussion_locked: false }), ['unlocked the discussion in this issue']);
    assert.deepEqual(await update({ due_date: '2031-11-30' }), ['changed due date to November 30, 2031']);
    assert.deepEqual(await update({ due_date: null }), ['removed due date']);
    assert.deepEqual(await update({ confidential: true }), ['made the issue confidential']);
    assert.deepEqual(await update({ confidential: false }), ['made the issue visible to everyone']);
  });

  it('names labels by id, milestones by reference and assignees by username', async () => {
    const first = Number((await fx.gantry.api('GET', `/projects/${fx.project.id}/labels/first`)).json.id);
    const [a, b] = [await labelId('a'), await labelId('b')];
    assert.deepEqual(await update({ add_labels: 'a,b' }), [`added ~${a} ~${b} labels`]);
    assert.deepEqual(await update({ remove_labels: 'first' }), [`removed ~${first} label`]);
    assert.deepEqual(await update({ labels: 'a,first' }), [`added ~${first} and removed ~${b} labels`]);

    const milestone = (await fx.gantry.api('POST', `/projects/${fx.project.id}/milestones`, { body: { title: 'v1' } })).json;
    const groupMilestone = (await fx.gantry.api('POST', `/groups/${fx.group.id}/milestones`, { body: { title: 'Q1' } })).json;
    assert.deepEqual(await update({ milestone_id: milestone.id }), [`changed milestone to %${milestone.iid}`]);
    assert.deepEqual(await update({ milestone_id: groupMilestone.id }), ['changed milestone to %"Q1"']);
    assert.deepEqual(await update({ milestone_id: 0 }), ['removed milestone']);

    assert.deepEqual(await update({ assignee_ids: [fx.developer.id] }), ['assigned to @ci-developer']);
    assert.deepEqual(await update({ assignee_ids: [fx.reporter.id] }), ['assigned to @ci-reporter and unassigned @ci-developer']);
    assert.deepEqual(await update({ assignee_ids: [] }), ['unassigned @ci-reporter']);
  });

  it('writes one note per change, in GitLab\'s order, when one update changes several things', async () => {
    assert.deepEqual(await update({ state_event: 'close', title: 'Crash', description: 'More steps' }), ['closed', 'changed title from **Crash{- on stop-}** to **Crash**', 'changed the description']);
    const notes = (await fx.gantry.api('GET', `${issue()}/notes`, { token: fx.guest.token })).list;
    assert.ok(notes.length > 10 && notes.every((note) => note.system === true && note.internal === false));
    assert.equal((await fx.gantry.api('GET', issue())).json.user_notes_count, 0);
  });

  it('builds the sentences of several labels and assignees, and the references of group milestones', () => {
    assert.equal(labelChange([1], [2, 3]), 'added ~2 ~3 and removed ~1 labels');
    assert.equal(labelChange([1, 2], [1, 2]), undefined);
    const users = ['ann', 'bob', 'cy'].map((username, index) => ({ id: index + 1, username }) as UserRecord);
    assert.equal(assigneeChange([], users), 'assigned to @ann, @bob, and @cy');
    assert.equal(assigneeChange(users.slice(0, 2), []), 'unassigned @ann and @bob');
    assert.equal(milestoneReference({ iid: 4, title: 'say "hi"', group_id: 7 }), '%4');
    assert.equal(titleChange('abc', 'xyz'), 'changed title from **{-abc-}** to **{+xyz+}**');
    assert.equal(titleChange('ab', 'abc'), 'changed title from **ab** to **ab{+c+}**');
  });
});
