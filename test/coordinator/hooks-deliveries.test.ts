import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('webhook deliveries', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  const receivers: HookReceiver[] = [];
  let fileCounter = 0;

  const receiver = async (answer?: (count: number) => number | 'hold') => {
    const made = await hookReceiver(answer);
    receivers.push(made);
    return made;
  };
  const addHook = async (body: Record<string, unknown>) => {
    const created = await gantry.api('POST', `/projects/${projectId}/hooks`, { body });
    assert.equal(created.status, 201, created.text);
    return created.json;
  };
  const hookOf = async (id: unknown) => (await gantry.api('GET', `/projects/${projectId}/hooks/${String(id)}`)).json;
  const eventsOf = async (id: unknown, query = '') => (await gantry.api('GET', `/projects/${projectId}/hooks/${String(id)}/events${query}`)).list;
  /** A commit through the API (a push event); answers its SHA. */
  const commit = async (branch = 'main'): Promise<string> => {
    fileCounter += 1;
    const made = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch, commit_message: `change ${fileCounter}`, actions: [{ action: 'create', file_path: `f${fileCounter}.txt`, content: `${fileCounter}\n` }] },
    });
    assert.equal(made.status, 201, made.text);
    return String(made.json.id);
  };
  const allowLocal = async (allowed: boolean) => {
    const changed = await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: allowed } });
    assert.equal(changed.status, 200, changed.text);
  };
  /** Removes every hook (each test starts with none). */
  const clearHooks = async () => {
    for (const hook of (await gantry.api('GET', `/projects/${projectId}/hooks?per_page=100`)).list) await gantry.api('DELETE', `/projects/${projectId}/hooks/${String(hook.id)}`);
  };

  before(async () => {
    // A request's time limit far beyond the test's own bounds: the held request must stay held however slow the machine.
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50, hooks: { retryBaseMs: 100, timeoutMs: 600_000 } } } });
    await allowLocal(true);
    const project = await gantry.api('POST', '/projects', { body: { name: 'hooked', initialize_with_readme: true } });
    assert.equal(project.status, 201, project.text);
    projectId = Number(project.json.id);
  });
  after(async () => {
    for (const made of receivers) await made.close();
    await gantry.close();
  });

  it("POSTs a push with GitLab's payload and headers, logs it with the token redacted", async () => {
    await clearHooks();
    const target = await receiver();
    const hook = await addHook({ url: `${target.base}/push`, token: 'hook-secret' });
    const sha = await commit();
    await waitUntil(() => target.requests.length >= 1, 'the push delivery');
    const [request] = target.requests;
    assert.equal(request!.url, '/push');
    assert.equal(request!.headers['x-gitlab-event'], 'Push Hook');
    assert.equal(request!.headers['x-gitlab-token'], 'hook-secret');
    assert.match(String(request!.headers['x-gitlab-event-uuid']), UUID);
    assert.equal(request!.headers['x-gitlab-instance'], 'http://gantry.test');
    assert.match(String(request!.headers['user-agent']), /^GitLab\/\d+\.\d+\.\d+$/);
    assert.equal(request!.headers['content-type'], 'application/json');
    const body = request!.body;
    assert.deepEqual([body.object_kind, body.event_name, body.ref, body.after, body.checkout_sha, body.user_username, body.project_id, body.total_commits_count], ['push', 'push', 'refs/heads/main', sha, sha, 'root', projectId, 1]);
    assert.equal((body.project as Record<string, unknown>).path_with_namespace, 'root/hooked');
    assert.deepEqual((body.commits as Array<Record<string, unknown>>).map((entry) => entry.id), [sha]);
    await waitUntil(async () => (await eventsOf(hook.id)).length === 1, 'the logged delivery');
    const [logged] = await eventsOf(hook.id);
    assert.deepEqual([logged!.trigger, logged!.response_status, logged!.url, logged!.response_body], ['push_hooks', '200', `${target.base}/push`, 'answer 200']);
    assert.equal((logged!.request_headers as Record<string, string>)['x-gitlab-token'], '[REDACTED]');
    assert.equal((logged!.request_data as Record<string, unknown>).after, sha);
  });

  it("sends a URL's user and password as basic authentication and logs the URL with both masked", async () => {
    await clearHooks();
    const target = await receiver();
    const withCredentials = target.base.replace('http://', 'http://deliverer:pa55word@');
    const hook = await addHook({ url: `${withCredentials}/credentials` });
    await commit();
    await waitUntil(() => target.requests.length >= 1, 'the delivery');
    assert.equal(target.requests[0]!.headers.authorization, `Basic ${Buffer.from('deliverer:pa55word').toString('base64')}`);
    await waitUntil(async () => (await eventsOf(hook.id)).length === 1, 'the logged delivery');
    const [logged] = await eventsOf(hook.id);
    assert.equal(logged!.url, `${target.base.replace('http://', 'http://*****:*****@')}/credentials`);
  });

  it('sends tag pushes to tag_push_events hooks only, and branch pushes only to branches the filter selects', async () => {
    await clearHooks();
    const tags = await receiver();
    const releases = await receiver();
    await addHook({ url: tags.base, push_events: false, tag_push_events: true });
    await addHook({ url: releases.base, push_events_branch_filter: 'release/*' });
    const branch = await gantry.api('POST', `/projects/${projectId}/repository/branches`, { body: { branch: 'release/1.0', ref: 'main' } });
    assert.equal(branch.status, 201, branch.text);
    await commit('main');
    const tag = await gantry.api('POST', `/projects/${projectId}/repository/tags`, { body: { tag_name: 'v1.0', ref: 'main' } });
    assert.equal(tag.status, 201, tag.text);
    await waitUntil(() => tags.requests.length >= 1 && releases.requests.length >= 1, 'the tag push and the release branch push');
    await commit('release/1.0');
    await waitUntil(() => releases.requests.length >= 2, 'the second release branch push');
    assert.deepEqual(tags.requests.map((entry) => [entry.headers['x-gitlab-event'], entry.body.object_kind, entry.body.ref]), [['Tag Push Hook', 'tag_push', 'refs/tags/v1.0']]);
    assert.deepEqual(releases.requests.map((entry) => entry.body.ref), ['refs/heads/release/1.0', 'refs/heads/release/1.0']);
  });

  it("keeps each hook's order, and a receiver that does not answer delays no other hook nor the push", async () => {
    await clearHooks();
    const slow = await receiver((count) => (count === 1 ? 'hold' : 200));
    const fast = await receiver();
    await addHook({ url: slow.base });
    await addHook({ url: fast.base });
    const shas: string[] = [];
    for (let index = 0; index < 6; index += 1) shas.push(await commit());
    await waitUntil(() => fast.requests.length >= 6, 'the six pushes at the fast receiver', { timeoutMs: 60_000 });
    assert.equal(slow.requests.length, 1, 'the slow receiver still holds its first request');
    assert.deepEqual(fast.requests.map((entry) => entry.body.after), shas);
    slow.held.shift()!.writeHead(200).end();
    await waitUntil(() => slow.requests.length >= 6, 'the six pushes at the slow receiver', { timeoutMs: 60_000 });
    assert.deepEqual(slow.requests.map((entry) => entry.body.after), shas);
  });

  it('retries a failed delivery with the same event UUID, disables the hook after 4 failures in a row, and an edit re-enables it', async () => {
    await clearHooks();
    let failing = 1;
    const flaky = await receiver((count) => (count <= failing ? 500 : 200));
    const hook = await addHook({ url: flaky.base });
    await commit();
    await waitUntil(() => flaky.requests.length >= 2, 'the retry');
    assert.equal(flaky.requests[0]!.headers['x-gitlab-event-uuid'], flaky.requests[1]!.headers['x-gitlab-event-uuid']);
    await waitUntil(async () => (await eventsOf(hook.id)).length === 2, 'both attempts logged');
    assert.deepEqual((await eventsOf(hook.id)).map((entry) => entry.response_status), ['200', '500']);
    assert.deepEqual((await eventsOf(hook.id, '?status=server_failure')).map((entry) => entry.response_status), ['500']);
    assert.equal((await hookOf(hook.id)).alert_status, 'executable');

    failing = Number.POSITIVE_INFINITY;
    const before = flaky.requests.length;
    const failingSince = Date.now();
    await commit();
    await commit();
    await waitUntil(async () => (await hookOf(hook.id)).alert_status === 'temporarily_disabled', 'the temporary disable', { timeoutMs: 60_000 });
    // Three attempts of the first event, one of the second: the fourth failure disabled the hook, and its queue was dropped.
    assert.equal(flaky.requests.length - before, 4);
    const disabled = await hookOf(hook.id);
    const until = Date.parse(String(disabled.disabled_until));
    assert.ok(until >= failingSince + 60_000 && until <= Date.now() + 60_000, String(disabled.disabled_until));
    await commit();
    // Deliveries are recorded before the commit answers: a disabled hook got none.
    const queued = await gantry.coordinator.context.db.selectFrom('web_hook_deliveries').select('id').where('hook_id', '=', Number(hook.id)).execute();
    assert.deepEqual(queued, [], 'a disabled hook is not sent to');

    failing = 0;
    const edited = await gantry.api('PUT', `/projects/${projectId}/hooks/${String(hook.id)}`, { body: { note_events: true } });
    assert.deepEqual([edited.json.alert_status, edited.json.disabled_until], ['executable', null]);
    const sha = await commit();
    await waitUntil(() => flaky.requests.some((entry) => entry.body.after === sha), 'the delivery after re-enabling');
  });

  it('refuses local addresses once they are not allowed, an IP literal and a name resolving to 127.0.0.1 alike', async () => {
    await clearHooks();
    const target = await receiver();
    const literal = await addHook({ url: `${target.base}/literal` });
    const named = await addHook({ url: `http://localhost:${target.port}/named` });
    await allowLocal(false);
    try {
      await commit();
      await waitUntil(async () => (await eventsOf(literal.id)).length === 1 && (await eventsOf(named.id)).length === 1, 'both refusals logged');
      const [byLiteral] = await eventsOf(literal.id);
      const [byName] = await eventsOf(named.id);
      assert.equal(byLiteral!.response_status, 'internal error');
      assert.match(String(byLiteral!.internal_error_message), /local address 127\.0\.0\.1 are not allowed/);
      assert.equal(byName!.response_status, 'internal error');
      assert.match(String(byName!.internal_error_message), /localhost resolves to a local address/);
      assert.equal(target.requests.length, 0);
      assert.equal((await hookOf(literal.id)).alert_status, 'executable', 'one refusal is one failure, not retried');
    } finally {
      await allowLocal(true);
    }
  });
});
