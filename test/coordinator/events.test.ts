import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

type Json = Record<string, unknown>;

describe('activity events (/events, /users/:id/events, /projects/:id/events)', () => {
  let fixture: GitHttpFixture;
  let dev: TestUser;
  let outsider: TestUser;
  let appId = 0;
  let pubId = 0;
  let cwd = '';

  const git = async (args: string[]): Promise<string> => {
    const result = await fixture.git(args, { cwd });
    assert.equal(result.code, 0, `git ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const api = (method: string, url: string, options: { token?: string | null; body?: Json } = {}) => fixture.gantry.api(method, url, options);
  const projectEvents = async (query = '', token?: string | null): Promise<Json[]> => (await api('GET', `/projects/${appId}/events${query}`, { token })).list;
  async function eventsSettle(count: number): Promise<void> {
    await waitUntil(async () => (await projectEvents('?per_page=100')).length >= count, `${count} events of the project`);
  }

  before(async () => {
    fixture = await startGitHttpFixture();
    const group = await makeGroup(fixture.gantry, 'evt');
    const open = await makeGroup(fixture.gantry, 'open', { visibility: 'public' });
    appId = (await fixture.project(group.id, 'app', { withReadme: true })).id;
    pubId = (await fixture.project(open.id, 'pub', { visibility: 'public', withReadme: true })).id;
    dev = await makeUser(fixture.gantry, 'dev');
    outsider = await makeUser(fixture.gantry, 'outsider');
    await addMember(fixture.gantry, { type: 'namespace', id: group.id }, dev.id, 30);
    await addMember(fixture.gantry, { type: 'namespace', id: open.id }, dev.id, 30);
    cwd = path.join(fixture.workDir, 'app');
    const clone = await fixture.git(['clone', fixture.url('evt/app', { user: 'root', secret: ROOT_TOKEN }), cwd]);
    assert.equal(clone.code, 0, clone.stderr);
  });
  after(() => fixture.close());

  it('records one event per pushed ref with GitLab\'s push_data: pushed to, pushed new, deleted, tags', async () => {
    const base = await git(['rev-parse', 'HEAD']);
    await git(['commit', '--allow-empty', '-m', 'Second commit\n\nWith a body']);
    const second = await git(['rev-parse', 'HEAD']);
    await git(['push', 'origin', 'HEAD:main']);
    await eventsSettle(1);
    await git(['checkout', '-b', 'feature']);
    await git(['commit', '--allow-empty', '-m', 'Feature one']);
    await git(['commit', '--allow-empty', '-m', 'Feature two']);
    const featureTip = await git(['rev-parse', 'HEAD']);
    await git(['push', 'origin', 'feature']);
    await eventsSettle(2);
    await git(['push', 'origin', `${second}:refs/tags/v1.0`]);
    await eventsSettle(3);
    await git(['push', 'origin', ':refs/heads/feature']);
    await eventsSettle(4);

    const [deleted, tag, created, updated] = await projectEvents();
    assert.deepEqual(
      [updated?.action_name, updated?.push_data],
      ['pushed to', { commit_count: 1, action: 'pushed', ref_type: 'branch', commit_from: base, commit_to: second, ref: 'main', commit_title: 'Second commit', ref_count: null }],
    );
    assert.deepEqual(
      [created?.action_name, created?.push_data],
      ['pushed new', { commit_count: 2, action: 'created', ref_type: 'branch', commit_from: null, commit_to: featureTip, ref: 'feature', commit_title: 'Feature two', ref_count: null }],
    );
    assert.deepEqual([tag?.action_name, (tag?.push_data as Json).ref_type, (tag?.push_data as Json).ref, (tag?.push_data as Json).commit_title], ['pushed new', 'tag', 'v1.0', 'Second commit']);
    assert.deepEqual(
      [deleted?.action_name, deleted?.push_data],
      ['deleted', { commit_count: 0, action: 'removed', ref_type: 'branch', commit_from: featureTip, commit_to: null, ref: 'feature', commit_title: null, ref_count: null }],
    );
    assert.deepEqual(
      { ...updated, push_data: undefined, created_at: undefined, id: undefined, author: undefined },
      {
        project_id: appId, action_name: 'pushed to', target_id: null, target_iid: null, target_type: null, author_id: 1, target_title: null,
        author_username: 'root', push_data: undefined, created_at: undefined, id: undefined, author: undefined,
      },
    );
    assert.deepEqual([(updated?.author as Json).username, 'note' in (updated ?? {})], ['root', false]);
    // The pusher's last activity day is today's.
    const today = new Date().toISOString().slice(0, 10);
    const activities = (await api('GET', `/user/activities?from=${today}`)).list;
    assert.deepEqual(activities.find((entry) => entry.username === 'root'), { username: 'root', last_activity_on: today, last_activity_at: today });
  });

  it('records issues and merge requests opened, closed, reopened and comments on them, as the actor', async () => {
    const issue = await api('POST', `/projects/${appId}/issues`, { token: dev.token, body: { title: 'A bug' } });
    assert.equal(issue.status, 201, issue.text);
    const iid = Number(issue.json.iid);
    const note = await api('POST', `/projects/${appId}/issues/${iid}/notes`, { token: dev.token, body: { body: 'I see it too' } });
    assert.equal(note.status, 201, note.text);
    assert.equal((await api('PUT', `/projects/${appId}/issues/${iid}`, { token: dev.token, body: { state_event: 'close' } })).status, 200);
    assert.equal((await api('PUT', `/projects/${appId}/issues/${iid}`, { token: dev.token, body: { state_event: 'reopen' } })).status, 200);
    assert.equal((await api('PUT', `/projects/${appId}/issues/${iid}`, { token: dev.token, body: { title: 'A renamed bug' } })).status, 200);
    const confidential = await api('POST', `/projects/${appId}/issues`, { token: dev.token, body: { title: 'Secret', confidential: true } });
    assert.equal(confidential.status, 201);
    await git(['push', 'origin', 'HEAD:refs/heads/topic']);
    const request = await api('POST', `/projects/${appId}/merge_requests`, { token: dev.token, body: { title: 'Topic', source_branch: 'topic', target_branch: 'main' } });
    assert.equal(request.status, 201, request.text);
    assert.equal((await api('POST', `/projects/${appId}/merge_requests/${request.json.iid}/notes`, { token: dev.token, body: { body: 'Please review' } })).status, 201);
    assert.equal((await api('PUT', `/projects/${appId}/merge_requests/${request.json.iid}`, { token: dev.token, body: { state_event: 'close' } })).status, 200);

    const events = await api('GET', `/users/${dev.id}/events?sort=asc`, { token: dev.token });
    const summary = events.list.map((event) => [event.action_name, event.target_type, event.target_title]);
    assert.deepEqual(summary, [
      ['opened', 'Issue', 'A bug'],
      ['commented on', 'Note', 'A bug'],
      ['closed', 'Issue', 'A bug'],
      ['opened', 'Issue', 'A bug'],
      ['opened', 'Issue', 'Secret'],
      ['opened', 'MergeRequest', 'Topic'],
      ['commented on', 'Note', 'Topic'],
      ['closed', 'MergeRequest', 'Topic'],
    ]);
    const comment = events.list[1] as Json;
    assert.deepEqual([comment.target_id, comment.target_iid], [note.json.id, note.json.id]);
    const noteJson = comment.note as Json;
    assert.deepEqual([noteJson.id, noteJson.body, noteJson.noteable_type, noteJson.noteable_id, noteJson.noteable_iid, (noteJson.author as Json).username], [note.json.id, 'I see it too', 'Issue', issue.json.id, iid, 'dev']);
    assert.deepEqual([events.list[0]?.target_id, events.list[0]?.target_iid], [issue.json.id, iid]);
    // By username too, as GitLab's find_user resolves it.
    assert.deepEqual((await api('GET', '/users/dev/events?sort=asc', { token: dev.token })).list.map((event) => event.id), events.list.map((event) => event.id));
    // The same from GET /events as dev.
    assert.deepEqual((await api('GET', '/events?sort=asc', { token: dev.token })).list.map((event) => event.id), events.list.map((event) => event.id));
    // The confidential issue's event: its author and reporters up see it, a guest of the group does not.
    const guest = await makeUser(fixture.gantry, 'evguest');
    await addMember(fixture.gantry, { type: 'namespace', id: (await api('GET', '/groups/evt')).json.id as number }, guest.id, 10);
    const titles = async (url: string, token?: string) => (await api('GET', url, { token })).list.map((event) => event.target_title);
    for (const url of [`/users/${dev.id}/events?target_type=issue`, `/projects/${appId}/events?target_type=issue`]) {
      assert.ok((await titles(url, guest.token)).includes('A bug'), url);
      assert.ok(!(await titles(url, guest.token)).includes('Secret'), `${url} shows the confidential issue to a guest`);
      assert.ok((await titles(url)).includes('Secret'), `${url} hides the confidential issue from an administrator`);
    }
    assert.ok((await titles(`/projects/${appId}/events`, dev.token)).includes('Secret'));
  });

  it('shows another user only the events of projects they can read', async () => {
    const issue = await api('POST', `/projects/${pubId}/issues`, { token: dev.token, body: { title: 'Public bug' } });
    assert.equal(issue.status, 201);
    const asOutsider = await api('GET', `/users/${dev.id}/events`, { token: outsider.token });
    assert.deepEqual(asOutsider.list.map((event) => [event.project_id, event.target_title]), [[pubId, 'Public bug']]);
    const anonymous = await api('GET', `/users/${dev.id}/events`, { token: null });
    assert.deepEqual(anonymous.list.map((event) => event.project_id), [pubId]);
    assert.equal((await api('GET', `/users/${dev.id}/events`)).list.length, 9);
    assert.deepEqual((await api('GET', `/projects/${appId}/events`, { token: outsider.token })).json, { message: '404 Project Not Found' });
  });

  it('filters by action, target_type, before and after, sorts and paginates', async () => {
    const pushes = await projectEvents('?action=pushed&per_page=100');
    assert.ok(pushes.length >= 5 && pushes.every((event) => String(event.action_name).startsWith('pushed') || event.action_name === 'deleted'), JSON.stringify(pushes));
    const issues = await projectEvents('?target_type=issue&sort=asc');
    // As root: the confidential issue's too.
    assert.deepEqual(issues.map((event) => [event.action_name, event.target_title]), [['opened', 'A bug'], ['closed', 'A bug'], ['opened', 'A bug'], ['opened', 'Secret']]);
    assert.deepEqual((await projectEvents('?target_type=note')).map((event) => event.target_title), ['Topic', 'A bug']);
    assert.deepEqual((await projectEvents('?action=merged')), []);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const all = await projectEvents('?per_page=100');
    assert.equal((await projectEvents(`?after=${yesterday}&per_page=100`)).length, all.length);
    assert.deepEqual(await projectEvents(`?after=${today}`), []);
    assert.deepEqual(await projectEvents(`?before=${today}`), []);
    const page = await api('GET', `/projects/${appId}/events?per_page=2&page=2`);
    assert.deepEqual([page.headers['x-total'], page.headers['x-page'], page.list.map((event) => event.id)], [String(all.length), '2', all.slice(2, 4).map((event) => event.id)]);
    const ascending = await projectEvents('?sort=asc&per_page=100');
    assert.deepEqual(ascending.map((event) => event.id), [...all].reverse().map((event) => event.id));
  });

  it('answers bad input with 400, anonymous /events with 401, unknown users and projects with 404', async () => {
    for (const query of ['action=eaten', 'target_type=wiki', 'before=yesterday', 'after=2020-13-45', 'sort=up', 'per_page=abc']) {
      const answer = await api('GET', `/projects/${appId}/events?${query}`);
      assert.equal(answer.status, 400, `${query}: ${answer.text}`);
      assert.equal((await api('GET', `/events?${query}`, { token: dev.token })).status, 400, query);
    }
    assert.equal((await api('GET', '/events', { token: null })).status, 401);
    assert.deepEqual((await api('GET', '/users/999999/events')).json, { message: '404 User Not Found' });
    assert.deepEqual((await api('GET', '/projects/999999/events')).json, { message: '404 Project Not Found' });
    assert.deepEqual((await api('GET', '/users/no-such-user/events')).json, { message: '404 User Not Found' });
  });

  it('records a merge as "accepted" by whoever merged', async () => {
    const commit = await api('POST', `/projects/${appId}/repository/commits`, { body: { branch: 'to-merge', start_branch: 'main', commit_message: 'To merge', actions: [{ action: 'create', file_path: 'merge.txt', content: 'merge\n' }] } });
    assert.equal(commit.status, 201, commit.text);
    const request = await api('POST', `/projects/${appId}/merge_requests`, { token: dev.token, body: { title: 'Merge me', source_branch: 'to-merge', target_branch: 'main' } });
    assert.equal(request.status, 201, request.text);
    const url = `/projects/${appId}/merge_requests/${request.json.iid}`;
    await waitUntil(async () => (await api('GET', url)).json.merge_status === 'can_be_merged', 'the merge status check');
    const merged = await api('PUT', `${url}/merge`);
    assert.equal(merged.status, 200, merged.text);
    const events = await projectEvents('?action=merged');
    assert.deepEqual(events.map((event) => [event.action_name, event.target_type, event.target_iid, event.target_title, event.author_username]), [['accepted', 'MergeRequest', request.json.iid, 'Merge me', 'root']]);
  });

  it('records a project\'s creation (by its creator, no target) and members joining and leaving it', async () => {
    const made = await api('POST', '/projects', { body: { name: 'made', namespace_id: (await api('GET', '/groups/evt')).json.id as number } });
    assert.equal(made.status, 201, made.text);
    const madeId = made.json.id as number;
    assert.equal((await api('POST', `/projects/${madeId}/members`, { body: { user_id: outsider.id, access_level: 30 } })).status, 201);
    assert.equal((await api('DELETE', `/projects/${madeId}/members/${outsider.id}`)).status, 204);
    const events = (await api('GET', `/projects/${madeId}/events?sort=asc`)).list;
    const seen = events.map((event) => [event.action_name, event.author_id, event.target_type]);
    assert.deepEqual(seen, [['created', 1, null], ['joined', outsider.id, null], ['left', outsider.id, null]]);
    assert.deepEqual((await api('GET', `/projects/${madeId}/events?action=joined`)).list.map((event) => event.author_id), [outsider.id]);
    // The member who left no longer reads the project, nor its events.
    assert.equal((await api('GET', `/projects/${madeId}/events`, { token: outsider.token })).status, 404);
  });
});
