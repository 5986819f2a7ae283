import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';
import { addMember, makeGroup, makeProject } from './groups-fixtures.ts';

describe('moving an issue to another project', () => {
  let fx: CiSettingsFixture;
  let target: ProjectRecord;
  let far: ProjectRecord;
  const source = () => `/projects/${fx.project.id}/issues`;

  async function notesOf(issueId: number): Promise<Array<{ body: string; author_id: number; system: number; project_id: number }>> {
    return fx.gantry.coordinator.context.db
      .selectFrom('notes').select(['body', 'author_id', 'system', 'project_id']).where('noteable_type', '=', 'Issue').where('noteable_id', '=', issueId).orderBy('id').execute();
  }

  before(async () => {
    fx = await startCiSettingsFixture();
    target = await makeProject(fx.gantry, fx.group.id, 'target');
    const other = await makeGroup(fx.gantry, 'other');
    far = await makeProject(fx.gantry, other.id, 'far');
    // The reporter administers issues in `target`, is a Guest in `far`; the Guest of `app` maintains `target`.
    await addMember(fx.gantry, { type: 'project', id: target.id }, fx.reporter.id, 20);
    await addMember(fx.gantry, { type: 'project', id: far.id }, fx.reporter.id, 10);
    await addMember(fx.gantry, { type: 'project', id: target.id }, fx.developer.id, 30);
    await addMember(fx.gantry, { type: 'project', id: target.id }, fx.guest.id, 40);
    for (const [url, body] of [
      [`/projects/${fx.project.id}/labels`, { name: 'bug', color: 'red' }],
      [`/projects/${fx.project.id}/labels`, { name: 'only-here', color: 'red' }],
      [`/groups/${fx.group.id}/labels`, { name: 'grp', color: 'blue' }],
      [`/projects/${target.id}/labels`, { name: 'bug', color: 'green' }],
      [`/projects/${fx.project.id}/milestones`, { title: 'v1' }],
      [`/projects/${target.id}/milestones`, { title: 'v1' }],
      [`/projects/${target.id}/issues`, { title: 'already there' }],
    ] as const) {
      const made = await fx.gantry.api('POST', url, { body });
      assert.equal(made.status, 201, made.text);
    }
  });
  after(() => fx.close());

  it('refuses without a token, an unknown issue, a project the caller cannot see, too few rights, and the same project', async () => {
    const move = (iid: number, toProjectId: number, token?: string | null) => fx.gantry.api('POST', `${source()}/${iid}/move`, { body: { to_project_id: toProjectId }, token });
    assert.equal((await fx.gantry.api('POST', source(), { body: { title: 'to refuse' } })).json.iid, 1);
    assert.deepEqual((await move(1, target.id, null)).json, { message: '401 Unauthorized' });
    assert.deepEqual((await move(99, target.id)).json, { message: '404 Issue Not Found' });
    assert.deepEqual((await move(1, 999_999)).json, { message: '404 Project Not Found' });
    assert.deepEqual((await move(1, far.id, fx.developer.token)).json, { message: '404 Project Not Found' });
    const insufficient = { message: '400 Bad request - Cannot move issue due to insufficient permissions!' };
    for (const [user, to] of [[fx.guest, target.id], [fx.reporter, far.id]] as const) {
      const answer = await move(1, to, user.token);
      assert.deepEqual([answer.status, answer.json], [400, insufficient], user.username);
    }
    const same = await move(1, fx.project.id, fx.reporter.token);
    assert.deepEqual([same.status, same.json], [400, { message: '400 Bad request - Cannot move issue to project it originates from!' }]);
    assert.equal((await fx.gantry.api('GET', `${source()}/1`)).json.state, 'opened');
  });

  it('copies the issue into the target with its next iid, mapping labels and milestone by title, and closes the original', async () => {
    const milestones = (await fx.gantry.api('GET', `/projects/${fx.project.id}/milestones`)).list;
    const body = {
      title: 'Moving', description: 'from app', confidential: true, labels: 'bug,only-here,grp', milestone_id: milestones[0]?.id,
      assignee_ids: [fx.developer.id], due_date: '2031-02-03', created_at: '2020-01-02T03:04:05.000Z',
    };
    const opened = await fx.gantry.api('POST', source(), { body });
    assert.equal(opened.status, 201, opened.text);
    const originalId = Number(opened.json.id);
    const { stores, db } = fx.gantry.coordinator.context;
    const now = new Date().toISOString();
    await stores.notes.create({ project_id: fx.project.id, noteable_type: 'Issue', noteable_id: originalId, author_id: fx.developer.id, body: 'a comment', system: false, internal: false, created_at: now, updated_at: now });
    await db.insertInto('award_emoji').values({ name: 'thumbsup', user_id: fx.developer.id, awardable_type: 'Issue', awardable_id: originalId, created_at: now, updated_at: now }).execute();

    const moved = await fx.gantry.api('POST', `${source()}/${opened.json.iid}/move`, { body: { to_project_id: target.id }, token: fx.reporter.token });
    assert.equal(moved.status, 201, moved.text);
    const copy = moved.json;
    const targetMilestone = (await fx.gantry.api('GET', `/projects/${target.id}/milestones`)).list[0];
    assert.deepEqual(
      [copy.project_id, copy.iid, copy.title, copy.description, copy.confidential, copy.labels, (copy.milestone as { id: number }).id, copy.due_date, copy.created_at, copy.state, copy.moved_to_id],
      [target.id, 2, 'Moving', 'from app', true, ['bug', 'grp'], targetMilestone?.id, '2031-02-03', '2020-01-02T03:04:05.000Z', 'opened', null],
    );
    assert.deepEqual([(copy.author as { id: number }).id, (copy.assignees as Array<{ id: number }>).map((user) => user.id)], [1, [fx.developer.id]]);

    const original = await fx.gantry.api('GET', `${source()}/${opened.json.iid}`);
    assert.deepEqual([original.json.state, original.json.moved_to_id, (original.json.closed_by as { id: number }).id], ['closed', copy.id, fx.reporter.id]);
    assert.deepEqual(await notesOf(Number(copy.id)), [
      { body: 'a comment', author_id: fx.developer.id, system: 0, project_id: target.id },
      { body: `moved from app#${opened.json.iid}`, author_id: fx.reporter.id, system: 1, project_id: target.id },
    ]);
    assert.deepEqual((await notesOf(originalId)).map((note) => note.body), ['a comment', `moved to target#${copy.iid}`]);
    const emoji = await db.selectFrom('award_emoji').select(['name', 'user_id']).where('awardable_type', '=', 'Issue').where('awardable_id', '=', Number(copy.id)).execute();
    assert.deepEqual(emoji, [{ name: 'thumbsup', user_id: fx.developer.id }]);

    const again = await fx.gantry.api('POST', `${source()}/${opened.json.iid}/move`, { body: { to_project_id: target.id } });
    assert.deepEqual([again.status, again.json.message], [400, '400 Bad request - Cannot move issue due to insufficient permissions!']);
  });

  it('names the other project by full path across namespaces, and moves once under concurrent requests', async () => {
    const iid = Number((await fx.gantry.api('POST', source(), { body: { title: 'far away' } })).json.iid);
    const answers = await Promise.all([0, 1, 2].map(() => fx.gantry.api('POST', `${source()}/${iid}/move`, { body: { to_project_id: far.id } })));
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 400, 400]);
    const copy = answers.find((answer) => answer.status === 201)?.json ?? {};
    const original = await fx.gantry.api('GET', `${source()}/${iid}`);
    assert.deepEqual((await notesOf(Number(original.json.id))).map((note) => note.body), [`moved to other/far#${copy.iid}`]);
    assert.deepEqual((await notesOf(Number(copy.id))).map((note) => note.body), [`moved from ci/app#${iid}`]);
    assert.equal((await fx.gantry.api('GET', `/projects/${far.id}/issues`)).list.length, 1);
  });
});
