import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { hookReceiver, type HookReceiver, type ReceivedHook } from './hooks-receiver.ts';

const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl hooks@example.com';

describe('system hooks', () => {
  let gantry: TestCoordinator;
  let target: HookReceiver;
  let user: { id: number; username: string; token: string };

  const named = (name: string) => (request: ReceivedHook) => request.body.event_name === name;
  const received = async (name: string, where: (request: ReceivedHook) => boolean = () => true): Promise<ReceivedHook> => {
    await waitUntil(() => target.requests.some((request) => named(name)(request) && where(request)), `a ${name} system event`, { explain: () => JSON.stringify(target.requests.map((r) => r.body.event_name)) });
    return target.requests.find((request) => named(name)(request) && where(request))!;
  };
  const addHook = async (body: Record<string, unknown>) => {
    const created = await gantry.api('POST', '/hooks', { body });
    assert.equal(created.status, 201, created.text);
    return created.json;
  };

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50, hooks: { retryBaseMs: 100 } } } });
    target = await hookReceiver();
    user = await gantry.createUser('plain');
  });
  after(async () => {
    await target.close();
    await gantry.close();
  });

  it("adds, reads, edits and deletes a hook with GitLab's defaults; the token is never shown", async () => {
    const hook = await addHook({ url: 'https://system.example.com/in', token: 'sys-s3cret' });
    assert.deepEqual(
      [hook.url, hook.push_events, hook.tag_push_events, hook.merge_requests_events, hook.repository_update_events, hook.enable_ssl_verification, hook.alert_status],
      ['https://system.example.com/in', true, false, false, true, true, 'executable'],
    );
    assert.ok(!('token' in hook) && !JSON.stringify(hook).includes('sys-s3cret'));
    assert.ok(typeof hook.created_at === 'string' && !('project_id' in hook));
    const read = await gantry.api('GET', `/hooks/${String(hook.id)}`);
    assert.deepEqual(read.json, hook);
    const listed = await gantry.api('GET', '/hooks');
    assert.ok(listed.list.some((entry) => entry.id === hook.id));
    const edited = await gantry.api('PUT', `/hooks/${String(hook.id)}`, { form: { tag_push_events: 'true', repository_update_events: 'false' } });
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual([edited.json.tag_push_events, edited.json.repository_update_events, edited.json.push_events, edited.json.url], [true, false, true, 'https://system.example.com/in']);
    const removed = await gantry.api('DELETE', `/hooks/${String(hook.id)}`);
    assert.equal(removed.status, 204);
    const gone = await gantry.api('GET', `/hooks/${String(hook.id)}`);
    assert.deepEqual([gone.status, gone.json], [404, { message: '404 Not found' }]);
  });

  it('answers 401 without a token, 403 to a non-administrator, 404 for an unknown hook, 400/422 for a missing or bad url', async () => {
    const hook = await addHook({ url: 'https://system.example.com/x' });
    const routes = [['GET', '/hooks'], ['POST', '/hooks'], ['GET', `/hooks/${String(hook.id)}`], ['PUT', `/hooks/${String(hook.id)}`], ['POST', `/hooks/${String(hook.id)}`], ['DELETE', `/hooks/${String(hook.id)}`]] as const;
    for (const [method, path] of routes) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : { url: 'https://system.example.com/y' };
      assert.equal((await gantry.api(method, path, { body, token: null })).status, 401, `${method} ${path}`);
      const denied = await gantry.api(method, path, { body, token: user.token });
      assert.deepEqual([denied.status, denied.json], [403, { message: '403 Forbidden' }], `${method} ${path}`);
    }
    for (const [method, path] of [['GET', '/hooks/999999'], ['PUT', '/hooks/999999'], ['POST', '/hooks/999999'], ['DELETE', '/hooks/999999']] as const) {
      const missing = await gantry.api(method, path, { body: method === 'PUT' ? { push_events: true } : undefined });
      assert.deepEqual([missing.status, missing.json], [404, { message: '404 Not found' }], `${method} ${path}`);
    }
    const noUrl = await gantry.api('POST', '/hooks', { body: { push_events: true } });
    assert.deepEqual([noUrl.status, noUrl.json], [400, { error: 'url is missing' }]);
    for (const bad of ['not a url', 'ftp://system.example.com/', `https://system.example.com/${'x'.repeat(5000)}`]) {
      const refused = await gantry.api('POST', '/hooks', { body: { url: bad } });
      assert.deepEqual([refused.status, refused.json], [422, { message: 'Invalid url given' }], bad);
    }
    const notNumeric = await gantry.api('GET', '/hooks/abc');
    assert.equal(notNumeric.status, 400);
    await gantry.api('DELETE', `/hooks/${String(hook.id)}`);
  });

  it('takes a local URL while allow_local_requests_from_system_hooks is on (the default), refuses it when off', async () => {
    const setting = await gantry.api('GET', '/application/settings');
    assert.equal(setting.json.allow_local_requests_from_system_hooks, true);
    assert.equal(setting.json.allow_local_requests_from_web_hooks_and_services, false);
    const local = await addHook({ url: 'http://127.0.0.1:9/local' });
    assert.equal((await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_system_hooks: false } })).status, 200);
    try {
      const refused = await gantry.api('POST', '/hooks', { body: { url: 'http://127.0.0.1:9/local' } });
      assert.deepEqual([refused.status, refused.json], [422, { message: 'Invalid url given' }]);
    } finally {
      assert.equal((await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_system_hooks: true } })).status, 200);
    }
    await gantry.api('DELETE', `/hooks/${String(local.id)}`);
  });

  it('sends project, user, group and key events, and pushes as push, tag_push and repository_update, all as "System Hook"', async () => {
    const hook = await addHook({ url: `${target.base}/system`, token: 'sys-token', tag_push_events: true });
    const project = await gantry.api('POST', '/projects', { body: { name: 'sysproj', initialize_with_readme: true } });
    assert.equal(project.status, 201, project.text);
    const created = await received('project_create', (request) => request.body.project_id === project.json.id);
    assert.equal(created.headers['x-gitlab-event'], 'System Hook');
    assert.equal(created.headers['x-gitlab-token'], 'sys-token');
    assert.deepEqual([created.body.name, created.body.path, created.body.path_with_namespace, created.body.project_visibility, created.body.owner_name], ['sysproj', 'sysproj', 'root/sysproj', 'private', 'Administrator']);

    const commit = await gantry.api('POST', `/projects/${String(project.json.id)}/repository/commits`, {
      body: { branch: 'main', commit_message: 'more', actions: [{ action: 'create', file_path: 'more.txt', content: 'more\n' }] },
    });
    assert.equal(commit.status, 201, commit.text);
    const push = await received('push', (request) => request.body.after === commit.json.id);
    assert.deepEqual([push.headers['x-gitlab-event'], push.body.object_kind, push.body.ref, push.body.project_id], ['System Hook', 'push', 'refs/heads/main', project.json.id]);
    const update = await received('repository_update', (request) => (request.body.changes as Array<{ after: string }>)[0]?.after === commit.json.id);
    assert.deepEqual(update.body.refs, ['refs/heads/main']);
    assert.deepEqual([update.body.project_id, (update.body.project as { path_with_namespace: string }).path_with_namespace, update.body.user_name], [project.json.id, 'root/sysproj', 'Administrator']);
    const tag = await gantry.api('POST', `/projects/${String(project.json.id)}/repository/tags`, { body: { tag_name: 'v1', ref: 'main' } });
    assert.equal(tag.status, 201, tag.text);
    const tagPush = await received('tag_push', (request) => request.body.ref === 'refs/tags/v1');
    assert.equal(tagPush.headers['x-gitlab-event'], 'System Hook');

    const other = await gantry.createUser('sysuser');
    const userCreated = await received('user_create', (request) => request.body.user_id === other.id);
    assert.deepEqual([userCreated.body.username, userCreated.body.name, userCreated.body.email], ['sysuser', 'User sysuser', 'sysuser@example.com']);
    const key = await gantry.api('POST', `/users/${other.id}/keys`, { body: { title: 'k', key: SSH_KEY } });
    assert.equal(key.status, 201, key.text);
    const keyCreated = await received('key_create', (request) => request.body.id === key.json.id);
    assert.deepEqual([keyCreated.body.username, String(keyCreated.body.key).startsWith('ssh-ed25519 ')], ['sysuser', true]);
    assert.equal((await gantry.api('DELETE', `/users/${other.id}/keys/${String(key.json.id)}`)).status, 204);
    await received('key_destroy', (request) => request.body.id === key.json.id);
    assert.equal((await gantry.api('DELETE', `/users/${other.id}`)).status, 204);
    await received('user_destroy', (request) => request.body.user_id === other.id);

    const group = await gantry.api('POST', '/groups', { body: { name: 'sysgroup', path: 'sysgroup' } });
    assert.equal(group.status, 201, group.text);
    const groupCreated = await received('group_create', (request) => request.body.group_id === group.json.id);
    assert.deepEqual([groupCreated.body.name, groupCreated.body.path, groupCreated.body.full_path], ['sysgroup', 'sysgroup', 'sysgroup']);
    const subgroup = await gantry.api('POST', '/groups', { body: { name: 'inner', path: 'inner', parent_id: group.json.id } });
    assert.equal(subgroup.status, 201, subgroup.text);
    const renamedName = await gantry.api('PUT', `/groups/${String(subgroup.json.id)}`, { body: { name: 'Inner Renamed' } });
    assert.equal(renamedName.status, 200, renamedName.text);
    const movedPath = await gantry.api('PUT', `/groups/${String(subgroup.json.id)}`, { body: { path: 'inner-2' } });
    assert.equal(movedPath.status, 200, movedPath.text);
    const renamed = await received('group_rename', (request) => request.body.group_id === subgroup.json.id);
    assert.deepEqual(
      [renamed.body.name, renamed.body.path, renamed.body.full_path, renamed.body.old_path, renamed.body.old_full_path, renamed.body.owner_name],
      ['Inner Renamed', 'inner-2', 'sysgroup/inner-2', 'inner', 'sysgroup/inner', null],
    );
    assert.equal(target.requests.filter(named('group_rename')).length, 1, 'a change of the name alone sends none');
    assert.equal((await gantry.api('DELETE', `/groups/${String(group.json.id)}`)).status, 202);
    await received('group_destroy', (request) => request.body.group_id === group.json.id);
    assert.equal((await gantry.api('DELETE', `/projects/${String(project.json.id)}`)).status, 202);
    const destroyed = await received('project_destroy', (request) => request.body.project_id === project.json.id);
    assert.equal(destroyed.body.path_with_namespace, 'root/sysproj');
    await gantry.api('DELETE', `/hooks/${String(hook.id)}`);
  });

  it('sends renames, a transfer and membership changes of projects and groups', async () => {
    const hook = await addHook({ url: `${target.base}/renames` });
    const at = (name: string, where: (request: ReceivedHook) => boolean) => received(name, (request) => request.url === '/renames' && where(request));
    const project = await gantry.api('POST', '/projects', { body: { name: 'movable' } });
    assert.equal(project.status, 201, project.text);
    const projectId = project.json.id as number;
    assert.equal((await gantry.api('PUT', `/projects/${projectId}`, { body: { path: 'moved' } })).status, 200);
    const renamed = await at('project_rename', (request) => request.body.project_id === projectId);
    assert.deepEqual([renamed.body.path, renamed.body.path_with_namespace, renamed.body.old_path_with_namespace], ['moved', 'root/moved', 'root/movable']);

    const group = await gantry.api('POST', '/groups', { body: { name: 'landing', path: 'landing' } });
    assert.equal(group.status, 201, group.text);
    assert.equal((await gantry.api('PUT', `/projects/${projectId}/transfer`, { body: { namespace: group.json.id } })).status, 200);
    const transferred = await at('project_transfer', (request) => request.body.project_id === projectId);
    assert.deepEqual([transferred.body.path_with_namespace, transferred.body.old_path_with_namespace], ['landing/moved', 'root/moved']);

    const member = await gantry.createUser('teammate');
    assert.equal((await gantry.api('POST', `/projects/${projectId}/members`, { body: { user_id: member.id, access_level: 30 } })).status, 201);
    const joined = await at('user_add_to_team', (request) => request.body.user_id === member.id);
    assert.deepEqual([joined.body.project_id, joined.body.project_path_with_namespace, joined.body.access_level, joined.body.user_username], [projectId, 'landing/moved', 'Developer', 'teammate']);
    assert.equal((await gantry.api('DELETE', `/projects/${projectId}/members/${member.id}`)).status, 204);
    await at('user_remove_from_team', (request) => request.body.user_id === member.id);
    assert.equal((await gantry.api('POST', `/groups/${String(group.json.id)}/members`, { body: { user_id: member.id, access_level: 20 } })).status, 201);
    const inGroup = await at('user_add_to_group', (request) => request.body.user_id === member.id);
    assert.deepEqual([inGroup.body.group_id, inGroup.body.full_path, inGroup.body.group_access], [group.json.id, 'landing', 'Reporter']);
    assert.equal((await gantry.api('DELETE', `/groups/${String(group.json.id)}/members/${member.id}`)).status, 204);
    await at('user_remove_from_group', (request) => request.body.user_id === member.id);

    assert.equal((await gantry.api('PUT', `/users/${member.id}`, { body: { username: 'teammate2' } })).status, 200);
    const userRenamed = await at('user_rename', (request) => request.body.user_id === member.id);
    assert.deepEqual([userRenamed.body.username, userRenamed.body.old_username], ['teammate2', 'teammate']);
    await gantry.api('DELETE', `/hooks/${String(hook.id)}`);
  });

  it("POST /hooks/:id sends GitLab's sample and answers it, five times a minute per hook and user, then 429", async () => {
    const hook = await addHook({ url: `${target.base}/test-call` });
    const before = target.requests.length;
    for (let call = 1; call <= 5; call += 1) {
      const tested = await gantry.api('POST', `/hooks/${String(hook.id)}`);
      assert.equal(tested.status, 201, tested.text);
      assert.deepEqual(tested.json, { event_name: 'project_create', name: 'Ruby', path: 'ruby', project_id: 1, owner_name: 'Someone', owner_email: 'example@gitlabhq.com' });
    }
    const sample = target.requests.slice(before).filter((request) => request.url === '/test-call');
    assert.equal(sample.length, 5);
    assert.equal(sample[0]!.headers['x-gitlab-event'], 'System Hook');
    const limited = await gantry.api('POST', `/hooks/${String(hook.id)}`);
    assert.deepEqual([limited.status, limited.json], [429, { message: 'This endpoint has been requested too many times. Try again later.' }]);
    assert.equal(target.requests.filter((request) => request.url === '/test-call').length, 5);
    await gantry.api('DELETE', `/hooks/${String(hook.id)}`);
  });
});
