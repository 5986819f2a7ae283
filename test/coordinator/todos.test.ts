import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PlanningPermissions } from '../../src/coordinator/services/access/planning-permissions.ts';
import { IssueViews } from '../../src/coordinator/services/planning/issue-views.ts';
import { TodosObserver } from '../../src/coordinator/services/planning/todos-observer.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

describe('todos', () => {
  let fx: CiSettingsFixture;
  let watcher: TestUser;
  const issues = (suffix = '') => `/projects/${fx.project.id}/issues${suffix}`;
  const todosOf = async (user: TestUser, query = '') => (await fx.gantry.api('GET', `/todos${query}`, { token: user.token })).list;
  const summary = (list: Array<Record<string, unknown>>) => list.map((todo) => [todo.action_name, (todo.target as Record<string, unknown>).iid, (todo.author as Record<string, unknown>).username]);

  before(async () => {
    fx = await startCiSettingsFixture();
    watcher = await makeUser(fx.gantry, 'ci-watcher');
    await addMember(fx.gantry, { type: 'project', id: fx.project.id }, watcher.id, 20);
  });
  after(() => fx.close());

  it('gives a new assignee an `assigned` todo, GitLab-shaped; none for assigning oneself', async () => {
    const created = await fx.gantry.api('POST', issues(), { body: { title: 'Crash', assignee_ids: [fx.developer.id] }, token: fx.reporter.token });
    assert.equal(created.status, 201, created.text);
    const [todo, ...rest] = await todosOf(fx.developer);
    assert.equal(rest.length, 0);
    assert.deepEqual(
      [todo!.action_name, todo!.target_type, todo!.body, todo!.state, todo!.target_url, (todo!.author as Record<string, unknown>).username],
      ['assigned', 'Issue', 'Crash', 'pending', 'http://gantry.test/ci/app/-/issues/1', fx.reporter.username],
    );
    assert.deepEqual(todo!.project, { id: fx.project.id, description: fx.project.description, name: 'app', name_with_namespace: 'ci / app', path: 'app', path_with_namespace: 'ci/app', created_at: fx.project.created_at });
    assert.deepEqual([(todo!.target as Record<string, unknown>).title, 'group' in todo!, typeof todo!.created_at, typeof todo!.updated_at], ['Crash', false, 'string', 'string']);
    await fx.gantry.api('POST', issues(), { body: { title: 'Mine', assignee_ids: [fx.reporter.id] }, token: fx.reporter.token });
    assert.deepEqual(await todosOf(fx.reporter), []);
  });

  it('on update, gives a todo only to newly added assignees, and one pending todo per issue', async () => {
    await fx.gantry.api('PUT', issues('/1'), { body: { assignee_ids: [fx.maintainer.id] }, token: fx.reporter.token });
    assert.deepEqual(summary(await todosOf(fx.maintainer)), [['assigned', 1, fx.reporter.username]]);
    await fx.gantry.api('PUT', issues('/1'), { body: { assignee_ids: [fx.developer.id] }, token: fx.reporter.token });
    assert.equal((await todosOf(fx.developer)).length, 1, 'the pending todo stays the only one');
    await fx.gantry.api('PUT', issues('/1'), { body: { title: 'Crash!' }, token: fx.reporter.token });
    assert.equal((await todosOf(fx.maintainer)).length, 1);
  });

  it('gives mentioned users todos (directly addressed first), not in code, not twice, not to those who cannot see the issue', async () => {
    const description = '@ci-guest please look\nAlso @ci-watcher, not `@ci-maintainer`, and @ci-stranger who is no member, and @ci-reporter (the author).';
    const created = await fx.gantry.api('POST', issues(), { body: { title: 'Mentions', description }, token: fx.reporter.token });
    const iid = Number(created.json.iid);
    assert.deepEqual(summary(await todosOf(fx.guest)), [['directly_addressed', iid, fx.reporter.username]]);
    assert.deepEqual(summary(await todosOf(watcher)), [['mentioned', iid, fx.reporter.username]]);
    assert.equal((await todosOf(fx.maintainer)).length, 1, 'code spans mention nobody');
    assert.deepEqual(await todosOf(fx.stranger), []);
    assert.deepEqual(await todosOf(fx.reporter), []);
    await fx.gantry.api('POST', `/todos/mark_as_done`, { token: fx.guest.token });
    await fx.gantry.api('PUT', issues(`/${iid}`), { body: { description: `${description} Now @ci-maintainer too.` }, token: fx.reporter.token });
    assert.deepEqual(await todosOf(fx.guest), [], 'users mentioned before get nothing new on an update');
    assert.deepEqual(summary(await todosOf(fx.maintainer)).map(([action]) => action), ['mentioned', 'assigned']);
  });

  it('creates nothing for a Guest mentioned in a confidential issue', async () => {
    const secret = await fx.gantry.api('POST', issues(), { body: { title: 'Secret', description: 'cc @ci-guest @ci-watcher', confidential: true }, token: fx.reporter.token });
    assert.equal(secret.status, 201);
    assert.deepEqual(await todosOf(fx.guest), []);
    assert.deepEqual(summary(await todosOf(watcher)).map(([, iid]) => iid), [secret.json.iid, 3]);
  });

  it('gives todos for mentions in notes, with the note as body and anchor, and marks the writer\'s own todos done', async () => {
    const { stores, permissions } = fx.gantry.coordinator.context;
    const observer = new TodosObserver({ todos: stores.todos, users: stores.users, planningPermissions: new PlanningPermissions(permissions) });
    const views = new IssueViews({ issues: stores.issues, milestones: stores.milestones, users: stores.users, projects: stores.projects, namespaces: stores.namespaces, notes: stores.notes, awardEmoji: stores.awardEmoji, mergeRequestIssueLinks: stores.mergeRequestIssueLinks });
    const issue = (await stores.issues.findByIid(fx.project.id, 1))!;
    const maintainer = (await stores.users.findById(fx.maintainer.id))!;
    const at = new Date().toISOString();
    const write = async (body: string, system = false) => {
      const note = await stores.notes.create({ project_id: fx.project.id, noteable_type: 'Issue', noteable_id: issue.id, author_id: maintainer.id, body, system, internal: false, created_at: at, updated_at: at });
      await observer.noteWritten({ project: fx.project, actor: maintainer, issue: await views.one(issue), note });
      return note;
    };
    assert.equal(summary(await todosOf(fx.maintainer)).filter(([, iid]) => iid === 1).length, 1);
    const note = await write('@ci-guest what do you think? @ci-watcher may know');
    assert.deepEqual(summary(await todosOf(fx.maintainer)).filter(([, iid]) => iid === 1), [], "writing a note marks the writer's todos on the issue done");
    const [guestTodo] = await todosOf(fx.guest);
    assert.deepEqual([guestTodo!.action_name, guestTodo!.body, guestTodo!.target_url], ['directly_addressed', note.body, `http://gantry.test/ci/app/-/issues/1#note_${note.id}`]);
    assert.deepEqual(summary(await todosOf(watcher, '?project_id=' + fx.project.id)).filter(([, iid]) => iid === 1).map(([action]) => action), ['mentioned']);
    await write('@ci-stranger, system notes mention nobody', true);
    assert.deepEqual(await todosOf(fx.stranger), []);
  });

  it('filters by action, author, project, group, state and type, newest first, with pagination headers', async () => {
    const watcherTodos = await todosOf(watcher);
    assert.ok(watcherTodos.length >= 3);
    const ids = watcherTodos.map((todo) => Number(todo.id));
    assert.deepEqual(ids, [...ids].sort((a, b) => b - a));
    const paged = await fx.gantry.api('GET', '/todos?per_page=1&page=2', { token: watcher.token });
    assert.deepEqual([paged.headers['x-total'], paged.headers['x-page'], paged.list.map((todo) => todo.id)], [String(ids.length), '2', [ids[1]]]);
    assert.equal((await todosOf(watcher, '?action=mentioned')).length, ids.length);
    assert.deepEqual(await todosOf(watcher, '?action=assigned'), []);
    assert.equal((await todosOf(watcher, `?author_id=${fx.reporter.id}`)).length, ids.length - 1);
    assert.deepEqual(await todosOf(watcher, `?author_id=${fx.developer.id}`), []);
    assert.equal((await todosOf(watcher, `?group_id=${fx.group.id}`)).length, ids.length);
    const elsewhere = await makeGroup(fx.gantry, 'elsewhere', { visibility: 'private' });
    assert.deepEqual(await todosOf(watcher, `?group_id=${elsewhere.id}`), []);
    assert.deepEqual(await todosOf(watcher, '?project_id=999999'), []);
    assert.deepEqual(await todosOf(watcher, '?type=MergeRequest'), []);
    assert.equal((await todosOf(watcher, '?type=Issue&state=pending')).length, ids.length);
    assert.deepEqual(await todosOf(watcher, '?state=done'), []);
    for (const query of ['?state=all', '?type=Epic', '?action=nope', '?author_id=x']) {
      assert.equal((await fx.gantry.api('GET', `/todos${query}`, { token: watcher.token })).status, 400, query);
    }
    assert.deepEqual((await fx.gantry.api('GET', '/todos', { token: null })).json, { message: '401 Unauthorized' });
  });

  it("marks one todo done (the caller's own only: another's is a 404), or all of them (204)", async () => {
    const [first, second] = await todosOf(watcher);
    const other = await fx.gantry.api('POST', `/todos/${String(first!.id)}/mark_as_done`, { token: fx.guest.token });
    assert.deepEqual([other.status, other.json], [404, { message: '404 Not found' }]);
    const done = await fx.gantry.api('POST', `/todos/${String(first!.id)}/mark_as_done`, { token: watcher.token });
    assert.deepEqual([done.status, done.json.id, done.json.state], [201, first!.id, 'done']);
    assert.deepEqual((await todosOf(watcher)).map((todo) => todo.id).includes(first!.id), false);
    assert.deepEqual((await todosOf(watcher, '?state=done')).map((todo) => todo.id), [first!.id]);
    assert.equal((await fx.gantry.api('POST', '/todos/999999/mark_as_done', { token: watcher.token })).status, 404);
    const all = await fx.gantry.api('POST', '/todos/mark_as_done', { token: watcher.token });
    assert.deepEqual([all.status, all.text], [204, '']);
    assert.deepEqual(await todosOf(watcher), []);
    assert.ok((await todosOf(watcher, '?state=done')).some((todo) => todo.id === second!.id));
  });

  it('marks the closer\'s own todos on an issue done when they close it, not anyone else\'s', async () => {
    const created = await fx.gantry.api('POST', issues(), { body: { title: 'To close', description: '@ci-guest @ci-developer' }, token: fx.maintainer.token });
    const iid = Number(created.json.iid);
    const pendingOn = async (user: TestUser) => summary(await todosOf(user)).filter(([, todoIid]) => todoIid === iid).length;
    assert.deepEqual([await pendingOn(fx.guest), await pendingOn(fx.developer)], [1, 1]);
    await fx.gantry.api('PUT', issues(`/${iid}`), { body: { state_event: 'close' }, token: fx.developer.token });
    assert.deepEqual([await pendingOn(fx.guest), await pendingOn(fx.developer)], [1, 0]);
  });

  it('hides todos of issues the user can no longer see: made confidential, or removed from the project', async () => {
    const created = await fx.gantry.api('POST', issues(), { body: { title: 'Soon secret', description: '@ci-guest @ci-watcher' }, token: fx.maintainer.token });
    const iid = Number(created.json.iid);
    const on = async (user: TestUser) => summary(await todosOf(user)).filter(([, todoIid]) => todoIid === iid).length;
    assert.deepEqual([await on(fx.guest), await on(watcher)], [1, 1]);
    await fx.gantry.api('PUT', issues(`/${iid}`), { body: { confidential: true }, token: fx.maintainer.token });
    assert.deepEqual([await on(fx.guest), await on(watcher)], [0, 1], 'a Guest loses a confidential issue; a Reporter keeps it');
    const removed = await fx.gantry.api('DELETE', `/projects/${fx.project.id}/members/${watcher.id}`);
    assert.equal(removed.status, 204);
    assert.deepEqual(await todosOf(watcher), []);
    const total = await fx.gantry.api('GET', '/todos', { token: watcher.token });
    assert.equal(total.headers['x-total'], '0');
  });

  it('marks an issue as a todo for the caller (201, then 304 while one is pending there); 404 for an issue they cannot see', async () => {
    const created = await fx.gantry.api('POST', issues(), { body: { title: 'Remember me' }, token: fx.maintainer.token });
    const iid = Number(created.json.iid);
    const marked = await fx.gantry.api('POST', issues(`/${iid}/todo`), { token: fx.guest.token });
    assert.equal(marked.status, 201, marked.text);
    assert.deepEqual(
      [marked.json.action_name, marked.json.target_type, marked.json.body, marked.json.state, (marked.json.target as Record<string, unknown>).iid, (marked.json.author as Record<string, unknown>).username],
      ['marked', 'Issue', 'Remember me', 'pending', iid, fx.guest.username],
    );
    assert.ok((await todosOf(fx.guest)).some((todo) => todo.id === marked.json.id));
    const again = await fx.gantry.api('POST', issues(`/${iid}/todo`), { token: fx.guest.token });
    assert.deepEqual([again.status, again.text], [304, '']);
    const secret = await fx.gantry.api('POST', issues(), { body: { title: 'Hidden', confidential: true }, token: fx.maintainer.token });
    const hidden = await fx.gantry.api('POST', issues(`/${String(secret.json.iid)}/todo`), { token: fx.guest.token });
    assert.deepEqual([hidden.status, hidden.json], [404, { message: '404 Issue Not Found' }]);
    assert.equal((await fx.gantry.api('POST', issues('/999999/todo'), { token: fx.guest.token })).status, 404);
    assert.equal((await fx.gantry.api('POST', issues(`/${iid}/todo`), { token: null })).status, 401);
  });
});
