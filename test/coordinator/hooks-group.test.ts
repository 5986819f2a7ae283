import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

describe('group hooks', () => {
  let gantry: TestCoordinator;
  let target: HookReceiver;
  let groupId: number;
  let subgroupId: number;
  let owner: { id: number; token: string };
  let maintainer: { id: number; token: string };
  const url = (suffix = '') => `/groups/${groupId}/hooks${suffix}`;

  const member = async (id: number, level: number) => {
    const added = await gantry.api('POST', `/groups/${groupId}/members`, { body: { user_id: id, access_level: level } });
    assert.equal(added.status, 201, added.text);
  };
  const project = async (namespaceId: number, name: string) => {
    const made = await gantry.api('POST', '/projects', { body: { name, namespace_id: namespaceId, initialize_with_readme: true } });
    assert.equal(made.status, 201, made.text);
    return Number(made.json.id);
  };

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50, hooks: { retryBaseMs: 100 } } } });
    assert.equal((await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } })).status, 200);
    target = await hookReceiver();
    const group = await gantry.api('POST', '/groups', { body: { name: 'hooked', path: 'hooked' } });
    groupId = Number(group.json.id);
    const subgroup = await gantry.api('POST', '/groups', { body: { name: 'sub', path: 'sub', parent_id: groupId } });
    subgroupId = Number(subgroup.json.id);
    owner = await gantry.createUser('gowner');
    maintainer = await gantry.createUser('gmaintainer');
    await member(owner.id, 50);
    await member(maintainer.id, 40);
  });
  after(async () => {
    await target.close();
    await gantry.close();
  });

  it("lets the group's Owners add, read, edit and delete hooks (GitLab's GroupHook entity)", async () => {
    const created = await gantry.api('POST', url(), { body: { url: 'https://group.example.com/in', token: 'g-secret', issues_events: true }, token: owner.token });
    assert.equal(created.status, 201, created.text);
    const hook = created.json;
    assert.deepEqual([hook.group_id, hook.push_events, hook.issues_events, hook.tag_push_events, hook.subgroup_events, hook.alert_status], [groupId, true, true, false, false, 'executable']);
    assert.ok(!('project_id' in hook) && !('token' in hook) && !created.text.includes('g-secret'));
    assert.deepEqual((await gantry.api('GET', url(`/${String(hook.id)}`), { token: owner.token })).json, hook);
    assert.deepEqual((await gantry.api('GET', url(), { token: owner.token })).list.map((entry) => entry.id), [hook.id]);
    const edited = await gantry.api('PUT', url(`/${String(hook.id)}`), { form: { pipeline_events: 'true', push_events: 'false' }, token: owner.token });
    assert.deepEqual([edited.status, edited.json.pipeline_events, edited.json.push_events, edited.json.issues_events], [200, true, false, true]);
    assert.equal((await gantry.api('GET', url(`/${String(hook.id)}/events`), { token: owner.token })).status, 200);
    assert.equal((await gantry.api('DELETE', url(`/${String(hook.id)}`), { token: owner.token })).status, 204);
    const gone = await gantry.api('GET', url(`/${String(hook.id)}`), { token: owner.token });
    assert.deepEqual([gone.status, gone.json], [404, { message: '404 Not found' }]);
  });

  it('answers 401 without a token, 403 to a Maintainer, 404 for an unknown group or hook, 400/422 for a missing or bad url', async () => {
    const hook = (await gantry.api('POST', url(), { body: { url: 'https://group.example.com/x' } })).json;
    assert.equal((await gantry.api('GET', url(), { token: null })).status, 401);
    for (const [method, suffix] of [['GET', ''], ['POST', ''], ['GET', `/${String(hook.id)}`], ['PUT', `/${String(hook.id)}`], ['DELETE', `/${String(hook.id)}`]] as const) {
      const denied = await gantry.api(method, url(suffix), { body: method === 'POST' || method === 'PUT' ? { url: 'https://group.example.com/y' } : undefined, token: maintainer.token });
      assert.deepEqual([denied.status, denied.json], [403, { message: '403 Forbidden' }], `${method} ${suffix}`);
    }
    const stranger = await gantry.createUser('gstranger');
    assert.equal((await gantry.api('GET', url(), { token: stranger.token })).status, 404);
    assert.deepEqual((await gantry.api('GET', '/groups/999999/hooks')).json, { message: '404 Group Not Found' });
    for (const [method, suffix] of [['GET', '/999999'], ['PUT', '/999999'], ['DELETE', '/999999']] as const) {
      const missing = await gantry.api(method, url(suffix), { body: method === 'PUT' ? { push_events: true } : undefined });
      assert.deepEqual([missing.status, missing.json], [404, { message: '404 Not found' }], `${method} ${suffix}`);
    }
    // Another group's hook id is not this group's.
    assert.equal((await gantry.api('GET', `/groups/${subgroupId}/hooks/${String(hook.id)}`)).status, 404);
    assert.deepEqual((await gantry.api('POST', url(), { body: { push_events: true } })).json, { error: 'url is missing' });
    const bad = await gantry.api('POST', url(), { body: { url: 'gopher://group.example.com/' } });
    assert.deepEqual([bad.status, bad.json], [422, { message: 'Invalid url given' }]);
    await gantry.api('DELETE', url(`/${String(hook.id)}`));
  });

  it("sends the events of the group's projects, subgroups included, as project hooks get them, and nothing of other projects", async () => {
    const hook = (await gantry.api('POST', url(), { body: { url: `${target.base}/group`, issues_events: true, token: 'g-token' } })).json;
    const inSubgroup = await project(subgroupId, 'deep');
    const outside = await project((await gantry.api('GET', '/namespaces/root')).json.id as number, 'elsewhere');
    for (const projectId of [outside, inSubgroup]) {
      const made = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
        body: { branch: 'main', commit_message: 'change', actions: [{ action: 'create', file_path: 'c.txt', content: 'c\n' }] },
      });
      assert.equal(made.status, 201, made.text);
    }
    const issue = await gantry.api('POST', `/projects/${inSubgroup}/issues`, { body: { title: 'Seen by the group' } });
    assert.equal(issue.status, 201, issue.text);
    await waitUntil(() => target.requests.filter((request) => request.url === '/group').length >= 2, 'the push and the issue at the group hook');
    const got = target.requests.filter((request) => request.url === '/group');
    assert.deepEqual(got.map((request) => [request.headers['x-gitlab-event'], (request.body.project as { id: number }).id]), [['Push Hook', inSubgroup], ['Issue Hook', inSubgroup]]);
    assert.equal(got[0]!.headers['x-gitlab-token'], 'g-token');
    assert.equal((got[1]!.body.object_attributes as { title: string }).title, 'Seen by the group');
    // The log entry is written after the receiver has answered: wait for both.
    const triggers = async () => (await gantry.api('GET', url(`/${String(hook.id)}/events`))).list.map((log) => String(log.trigger)).sort();
    await waitUntil(async () => (await triggers()).length >= 2, 'both deliveries logged');
    assert.deepEqual(await triggers(), ['issue_hooks', 'push_hooks']);
    assert.ok(!target.requests.some((request) => (request.body.project as { id: number } | undefined)?.id === outside));
  });
});
