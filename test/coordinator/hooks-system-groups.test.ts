import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { hookReceiver, type HookReceiver, type ReceivedHook } from './hooks-receiver.ts';

type Json = Record<string, unknown>;

describe('system hooks: owners, member edits, transfers, merge requests; group hooks: member and subgroup events', () => {
  let gantry: TestCoordinator;
  let target: HookReceiver;

  /** The first request at `path` matching `where`, once it came. */
  const received = async (path: string, where: (request: ReceivedHook) => boolean): Promise<ReceivedHook> => {
    const match = (request: ReceivedHook) => request.url === path && where(request);
    await waitUntil(() => target.requests.some(match), `an event at ${path}`, { explain: () => JSON.stringify(target.requests.filter((r) => r.url === path).map((r) => r.body.event_name ?? r.body.object_kind)) });
    return target.requests.find(match)!;
  };
  const event = (name: string, where: (body: Json) => boolean = () => true) => (request: ReceivedHook) => request.body.event_name === name && where(request.body);
  const at = (path: string) => target.requests.filter((request) => request.url === path);
  const created = async (method: 'POST' | 'PUT', path: string, body: Json, status = 201): Promise<Json> => {
    const answer = await gantry.api(method, path, { body });
    assert.equal(answer.status, status, answer.text);
    return answer.json;
  };

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50, hooks: { retryBaseMs: 100 } } } });
    assert.equal((await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } })).status, 200);
    target = await hookReceiver();
  });
  after(async () => {
    await target.close();
    await gantry.close();
  });

  it("fills project events' owners (the user, or the group's Owners) and sends the personal project's owner joining it", async () => {
    await created('POST', '/hooks', { url: `${target.base}/owners` });
    const personal = await created('POST', '/projects', { name: 'mine' });
    const create = await received('/owners', event('project_create', (body) => body.project_id === personal.id));
    assert.deepEqual([create.body.owner_name, create.body.owner_email, create.body.owners], ['Administrator', '[REDACTED]', [{ name: 'Administrator', email: '[REDACTED]' }]]);
    const joined = await received('/owners', event('user_add_to_team', (body) => body.project_id === personal.id));
    assert.deepEqual([joined.body.user_username, joined.body.access_level, joined.body.project_path_with_namespace], ['root', 'Owner', 'root/mine']);
    // GitLab sends the project's creation first, then the owner's membership.
    const order = at('/owners').filter((request) => request.body.project_id === personal.id).map((request) => request.body.event_name);
    assert.deepEqual(order.slice(0, 2), ['project_create', 'user_add_to_team']);

    const group = await created('POST', '/groups', { name: 'owned', path: 'owned' });
    const second = await gantry.createUser('secondowner');
    await created('POST', `/groups/${String(group.id)}/members`, { user_id: second.id, access_level: 50 });
    const inGroup = await created('POST', '/projects', { name: 'shared', namespace_id: group.id });
    const groupCreate = await received('/owners', event('project_create', (body) => body.project_id === inGroup.id));
    assert.deepEqual([groupCreate.body.owner_name, (groupCreate.body.owners as Json[]).map((owner) => owner.name)], ['Administrator', ['Administrator', 'User secondowner']]);
    await created('PUT', `/projects/${String(inGroup.id)}`, { path: 'shared2' }, 200);
    const renamed = await received('/owners', event('project_rename', (body) => body.project_id === inGroup.id));
    assert.equal(renamed.body.owner_name, 'Administrator');
    assert.equal((await gantry.api('DELETE', `/projects/${String(personal.id)}`)).status, 202);
    const destroyed = await received('/owners', event('project_destroy', (body) => body.project_id === personal.id));
    assert.equal(destroyed.body.owner_name, 'Administrator');
    // A group project's creation adds no membership (GitLab only authorizes the group's members).
    assert.ok(!at('/owners').some(event('user_add_to_team', (body) => body.project_id === inGroup.id)));
  });

  it('sends user_update_for_team and user_update_for_group when a member is edited', async () => {
    await created('POST', '/hooks', { url: `${target.base}/levels` });
    const member = await gantry.createUser('levelled');
    const project = await created('POST', '/projects', { name: 'levels' });
    const group = await created('POST', '/groups', { name: 'levels-group', path: 'levels-group' });
    await created('POST', `/projects/${String(project.id)}/members`, { user_id: member.id, access_level: 30 });
    await created('PUT', `/projects/${String(project.id)}/members/${member.id}`, { access_level: 40 }, 200);
    const team = await received('/levels', event('user_update_for_team', (body) => body.user_id === member.id));
    assert.deepEqual([team.body.project_id, team.body.access_level, team.body.user_username], [project.id, 'Maintainer', 'levelled']);
    await created('POST', `/groups/${String(group.id)}/members`, { user_id: member.id, access_level: 20 });
    await created('PUT', `/groups/${String(group.id)}/members/${member.id}`, { access_level: 30, expires_at: '2999-01-01' }, 200);
    const inGroup = await received('/levels', event('user_update_for_group', (body) => body.user_id === member.id));
    assert.deepEqual([inGroup.body.group_id, inGroup.body.group_access, inGroup.body.full_path], [group.id, 'Developer', 'levels-group']);
  });

  it('sends project_transfer for POST /groups/:id/projects/:project_id and for each project moving with its group', async () => {
    await created('POST', '/hooks', { url: `${target.base}/moves` });
    const project = await created('POST', '/projects', { name: 'wanderer' });
    const landing = await created('POST', '/groups', { name: 'landing2', path: 'landing2' });
    await created('POST', `/groups/${String(landing.id)}/projects/${String(project.id)}`, {});
    const moved = await received('/moves', event('project_transfer', (body) => body.project_id === project.id));
    assert.deepEqual([moved.body.path_with_namespace, moved.body.old_path_with_namespace, moved.body.owner_name], ['landing2/wanderer', 'root/wanderer', 'Administrator']);

    const sub = await created('POST', '/groups', { name: 'deep', path: 'deep', parent_id: landing.id });
    const nested = await created('POST', '/projects', { name: 'nested', namespace_id: sub.id });
    const top = await created('POST', '/groups', { name: 'top', path: 'top' });
    await created('POST', `/groups/${String(landing.id)}/transfer`, { group_id: top.id });
    const both = [project.id, nested.id];
    await waitUntil(() => both.every((id) => at('/moves').some(event('project_transfer', (body) => body.project_id === id && String(body.path_with_namespace).startsWith('top/')))), 'both transfers');
    const paths = both.map((id) => at('/moves').find(event('project_transfer', (body) => body.project_id === id && String(body.path_with_namespace).startsWith('top/')))!.body);
    assert.deepEqual(paths.map((body) => [body.path_with_namespace, body.old_path_with_namespace]), [
      ['top/landing2/wanderer', 'landing2/wanderer'],
      ['top/landing2/deep/nested', 'landing2/deep/nested'],
    ]);
  });

  it('sends merge request events to system hooks with merge_requests_events only', async () => {
    await created('POST', '/hooks', { url: `${target.base}/mr-on`, merge_requests_events: true });
    await created('POST', '/hooks', { url: `${target.base}/mr-off` });
    const project = await created('POST', '/projects', { name: 'reviews', initialize_with_readme: true });
    await created('POST', `/projects/${String(project.id)}/repository/branches`, { branch: 'topic', ref: 'main' });
    const request = await created('POST', `/projects/${String(project.id)}/merge_requests`, { source_branch: 'topic', target_branch: 'main', title: 'Review me' });
    const heard = await received('/mr-on', (hook) => hook.body.object_kind === 'merge_request');
    assert.deepEqual([heard.headers['x-gitlab-event'], (heard.body.object_attributes as Json).iid, (heard.body.object_attributes as Json).action, (heard.body.project as Json).id], ['System Hook', request.iid, 'open', project.id]);
    // A later event to the other hook: its deliveries keep their order, so nothing was skipped before it.
    const later = await gantry.createUser('after-mr');
    await received('/mr-off', event('user_create', (body) => body.user_id === later.id));
    assert.ok(!at('/mr-off').some((hook) => hook.body.object_kind === 'merge_request'));
  });

  it('sends member events and subgroup events to the group hooks (and the ancestors\') that subscribe', async () => {
    const parent = await created('POST', '/groups', { name: 'family', path: 'family' });
    const child = await created('POST', '/groups', { name: 'kid', path: 'kid', parent_id: parent.id });
    const both = await created('POST', `/groups/${String(parent.id)}/hooks`, { url: `${target.base}/family`, subgroup_events: true, member_events: true, push_events: false });
    assert.deepEqual([both.subgroup_events, both.member_events], [true, true]);
    const plain = await created('POST', `/groups/${String(parent.id)}/hooks`, { url: `${target.base}/family-plain`, issues_events: true });
    assert.deepEqual([plain.subgroup_events, plain.member_events], [false, false]);
    const edited = await created('PUT', `/groups/${String(parent.id)}/hooks/${String(plain.id)}`, { member_events: 'true' }, 200);
    assert.deepEqual([edited.member_events, edited.subgroup_events, edited.issues_events], [true, false, true]);
    await created('PUT', `/groups/${String(parent.id)}/hooks/${String(plain.id)}`, { member_events: false }, 200);
    // A project hook takes no group flags.
    const project = await created('POST', '/projects', { name: 'flagless' });
    const projectHook = await created('POST', `/projects/${String(project.id)}/hooks`, { url: 'https://example.com/p', member_events: true });
    assert.ok(!('member_events' in projectHook));

    const member = await gantry.createUser('kidmember');
    await created('POST', `/groups/${String(child.id)}/members`, { user_id: member.id, access_level: 30, expires_at: '2999-12-31' });
    const joined = await received('/family', event('user_add_to_group', (body) => body.user_id === member.id));
    assert.equal(joined.headers['x-gitlab-event'], 'Member Hook');
    assert.deepEqual(
      [joined.body.group_id, joined.body.group_name, joined.body.group_path, joined.body.group_access, joined.body.user_username, joined.body.expires_at, joined.body.group_plan],
      [child.id, 'kid', 'kid', 'Developer', 'kidmember', '2999-12-31', null],
    );
    await created('PUT', `/groups/${String(child.id)}/members/${member.id}`, { access_level: 40 }, 200);
    await received('/family', event('user_update_for_group', (body) => body.group_access === 'Maintainer'));
    assert.equal((await gantry.api('DELETE', `/groups/${String(child.id)}/members/${member.id}`)).status, 204);
    await received('/family', event('user_remove_from_group', (body) => body.user_id === member.id));

    const grandchild = await created('POST', '/groups', { name: 'grandkid', path: 'grandkid', parent_id: child.id });
    const sub = await received('/family', event('subgroup_create', (body) => body.group_id === grandchild.id));
    assert.equal(sub.headers['x-gitlab-event'], 'Subgroup Hook');
    assert.deepEqual(
      [sub.body.name, sub.body.full_path, sub.body.parent_group_id, sub.body.parent_name, sub.body.parent_path, sub.body.parent_full_path],
      ['grandkid', 'family/kid/grandkid', child.id, 'kid', 'kid', 'family/kid'],
    );
    assert.equal((await gantry.api('DELETE', `/groups/${String(grandchild.id)}`)).status, 202);
    await received('/family', event('subgroup_destroy', (body) => body.group_id === grandchild.id));
    // A delivery is logged once its receiver has answered: the last log may follow its request.
    const triggers = async () => new Set((await gantry.api('GET', `/groups/${String(parent.id)}/hooks/${String(both.id)}/events`)).list.map((log) => log.trigger));
    await waitUntil(async () => (await triggers()).size >= 2, 'both kinds logged');
    assert.deepEqual(await triggers(), new Set(['member_hooks', 'subgroup_hooks']));

    // The plain hook hears an issue later: it heard none of the member or subgroup events before it.
    const inChild = await created('POST', '/projects', { name: 'kidproject', namespace_id: child.id });
    await created('POST', `/projects/${String(inChild.id)}/issues`, { title: 'to the plain hook' });
    await received('/family-plain', (hook) => hook.body.object_kind === 'issue');
    assert.deepEqual(at('/family-plain').map((hook) => hook.body.object_kind), ['issue']);
  });

  it("test-calls a group hook with a sample from the group's first project with commits (GitLab's TestHooks::GroupService)", async () => {
    const group = await created('POST', '/groups', { name: 'tested', path: 'tested' });
    const maintainer = await gantry.createUser('testmaintainer');
    await created('POST', `/groups/${String(group.id)}/members`, { user_id: maintainer.id, access_level: 40 });
    const hook = await created('POST', `/groups/${String(group.id)}/hooks`, { url: `${target.base}/group-test` });
    const test = (trigger: string, options: { token?: string; hookId?: unknown } = {}) =>
      gantry.api('POST', `/groups/${String(group.id)}/hooks/${String(options.hookId ?? hook.id)}/test/${trigger}`, { token: options.token });
    const none = await test('push_events');
    assert.deepEqual([none.status, none.json], [422, { message: 'Ensure the group has a project with commits.' }]);
    await created('POST', '/projects', { name: 'empty-one', namespace_id: group.id });
    const stillNone = await test('push_events');
    assert.deepEqual([stillNone.status, stillNone.json], [422, { message: 'Ensure the group has a project with commits.' }]);
    const filled = await created('POST', '/projects', { name: 'filled', namespace_id: group.id, initialize_with_readme: true });
    const sent = await test('push_events');
    assert.deepEqual([sent.status, sent.json], [201, { message: '201 Created' }]);
    const [push] = at('/group-test');
    assert.deepEqual([push!.headers['x-gitlab-event'], push!.body.object_kind, push!.body.project_id], ['Push Hook', 'push', filled.id]);
    const issues = await test('issues_events');
    assert.deepEqual([issues.status, issues.json], [422, { message: 'Ensure the project has issues.' }]);
    const unavailable = await test('wiki_page_events');
    assert.deepEqual([unavailable.status, unavailable.json], [422, { message: 'Testing not available for this hook' }]);
    assert.equal((await test('no_such_events')).status, 400);
    assert.equal((await test('push_events', { token: maintainer.token })).status, 403);
    const missing = await test('push_events', { hookId: 999999 });
    assert.deepEqual([missing.status, missing.json], [404, { message: '404 Not found' }]);
    assert.equal((await gantry.api('POST', `/groups/${String(group.id)}/hooks/${String(hook.id)}/test/push_events`, { token: null })).status, 401);
    const logs = await gantry.api('GET', `/groups/${String(group.id)}/hooks/${String(hook.id)}/events`);
    assert.deepEqual(logs.list.map((log) => log.trigger), ['push_hooks']);
  });
});
