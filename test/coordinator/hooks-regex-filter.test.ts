import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitUntil } from '../helpers/bounded.ts';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

const INVALID = { message: 'Invalid branch filter given' };
/** RE2 accepts it, but re2js takes seconds and hundreds of MB to compile it: over the budget. */
const PATHOLOGICAL = '(a{1,1000})'.repeat(360);

describe('regex branch filters of push hooks', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let groupId: number;
  const receivers: HookReceiver[] = [];
  let files = 0;

  const receiver = async () => {
    const made = await hookReceiver();
    receivers.push(made);
    return made;
  };
  const create = async (path: string, body: Record<string, unknown>) => {
    const created = await gantry.api('POST', path, { body });
    assert.equal(created.status, 201, created.text);
    return created.json;
  };
  const commit = async (branch: string) => {
    files += 1;
    const made = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch, start_branch: 'main', commit_message: `change ${files}`, actions: [{ action: 'create', file_path: `f${files}.txt`, content: `${files}\n` }] },
    });
    assert.equal(made.status, 201, made.text);
  };
  /** The refs of the pushes a receiver heard (a system hook hears `repository_update` too). */
  const refs = (target: HookReceiver) => target.requests.filter((request) => request.body.event_name === 'push' || request.body.event_name === 'tag_push').map((request) => request.body.ref);

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50, hooks: { retryBaseMs: 100 } } } });
    const allowed = await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
    assert.equal(allowed.status, 200, allowed.text);
    groupId = Number((await create('/groups', { name: 'regexed', path: 'regexed' })).id);
    projectId = Number((await create('/projects', { name: 'filtered', namespace_id: groupId, initialize_with_readme: true })).id);
  });
  after(async () => {
    for (const made of receivers) await made.close();
    await gantry.close();
  });

  it('creates and edits project, group and system hooks with a valid RE2 filter', async () => {
    // System hooks take the filter, but GitLab's SystemHook entity does not show it.
    const shown = (path: string, hook: Record<string, unknown>) => (path === '/hooks' ? undefined : [hook.branch_filter_strategy, hook.push_events_branch_filter]);
    const expect = (path: string, strategy: string, filter: string | null) => (path === '/hooks' ? undefined : [strategy, filter]);
    for (const path of [`/projects/${projectId}/hooks`, `/groups/${groupId}/hooks`, '/hooks']) {
      const hook = await create(path, { url: 'https://hooks.example.com/r', branch_filter_strategy: 'regex', push_events_branch_filter: '^release/\\d+\\.\\d+$' });
      assert.deepEqual(shown(path, hook), expect(path, 'regex', '^release/\\d+\\.\\d+$'), path);
      const edited = await gantry.api('PUT', `${path}/${String(hook.id)}`, { body: { push_events_branch_filter: '(?i)^(main|hot-?fix/.+)$' } });
      assert.equal(edited.status, 200, edited.text);
      assert.deepEqual(shown(path, edited.json), expect(path, 'regex', '(?i)^(main|hot-?fix/.+)$'), path);
      // A wildcard filter kept when the strategy alone changes is checked as a regex.
      const wildcard = await create(path, { url: 'https://hooks.example.com/w', push_events_branch_filter: 'release/*' });
      const switched = await gantry.api('PUT', `${path}/${String(wildcard.id)}`, { body: { branch_filter_strategy: 'regex' } });
      assert.equal(switched.status, 200, switched.text);
      assert.deepEqual(shown(path, switched.json), expect(path, 'regex', 'release/*'), path);
      const blank = await create(path, { url: 'https://hooks.example.com/b', branch_filter_strategy: 'regex', push_events_branch_filter: '' });
      assert.deepEqual(shown(path, blank), expect(path, 'regex', null), path);
    }
  });

  it('refuses what RE2 refuses, a filter longer than 4,000 characters, and a program over the budget (422), on create and edit', async () => {
    const refusedFilters = ['(unclosed', '(?<=a)b', '(a)\\1', 'x{1001}', 'a'.repeat(4001), '\\pL{1000}', 'x{600}y{600}'];
    for (const path of [`/projects/${projectId}/hooks`, `/groups/${groupId}/hooks`, '/hooks']) {
      for (const filter of refusedFilters) {
        const refused = await gantry.api('POST', path, { body: { url: 'https://hooks.example.com/x', branch_filter_strategy: 'regex', push_events_branch_filter: filter } });
        assert.deepEqual([refused.status, refused.json], [422, INVALID], `${path} ${filter.slice(0, 20)}`);
      }
      const hook = await create(path, { url: 'https://hooks.example.com/x', branch_filter_strategy: 'regex', push_events_branch_filter: 'main' });
      const edit = await gantry.api('PUT', `${path}/${String(hook.id)}`, { body: { push_events_branch_filter: '[z-a]' } });
      assert.deepEqual([edit.status, edit.json], [422, INVALID], path);
      if (path !== '/hooks') assert.equal((await gantry.api('GET', `${path}/${String(hook.id)}`)).json.push_events_branch_filter, 'main');
    }
    // Within the budget: 1,000 instructions.
    const largest = await gantry.api('POST', `/projects/${projectId}/hooks`, { body: { url: 'https://hooks.example.com/x', branch_filter_strategy: 'regex', push_events_branch_filter: 'x{990}' } });
    assert.equal(largest.status, 201, largest.text);
  });

  it('refuses a pathological filter while other requests go on', async () => {
    let saved = false;
    const saving = gantry.api('POST', `/projects/${projectId}/hooks`, { body: { url: 'https://hooks.example.com/p', branch_filter_strategy: 'regex', push_events_branch_filter: PATHOLOGICAL } })
      .then((answer) => {
        saved = true;
        return answer;
      });
    // Requests answered while the filter is being compiled: the compile runs beside the coordinator, not in it.
    let answeredMeanwhile = 0;
    while (!saved) {
      // A turn of the event loop between requests (they are injected, answered without one).
      await sleep(10);
      const version = await gantry.api('GET', '/version');
      assert.equal(version.status, 200, version.text);
      if (!saved) answeredMeanwhile += 1;
    }
    const refused = await saving;
    assert.deepEqual([refused.status, refused.json], [422, INVALID]);
    assert.ok(answeredMeanwhile >= 2, `${String(answeredMeanwhile)} requests answered while the filter was compiled`);
    // The budget's thread is started again for the next filter.
    const next = await gantry.api('POST', `/projects/${projectId}/hooks`, { body: { url: 'https://hooks.example.com/p', branch_filter_strategy: 'regex', push_events_branch_filter: 'ok$' } });
    assert.equal(next.status, 201, next.text);
  });

  it('delivers a push to project, group and system hooks whose regex matches the branch, and to no other', async () => {
    for (const path of [`/projects/${projectId}/hooks`, `/groups/${groupId}/hooks`, '/hooks']) {
      for (const hook of (await gantry.api('GET', `${path}?per_page=100`)).list) await gantry.api('DELETE', `${path}/${String(hook.id)}`);
    }
    const project = await receiver();
    const group = await receiver();
    const system = await receiver();
    const last = await receiver();
    const tags = await receiver();
    // Matched anywhere in the name, as GitLab's RE2 match is: `release/\d` selects `hot/release/2`.
    await create(`/projects/${projectId}/hooks`, { url: project.base, branch_filter_strategy: 'regex', push_events_branch_filter: 'release/\\d' });
    await create(`/groups/${groupId}/hooks`, { url: group.base, branch_filter_strategy: 'regex', push_events_branch_filter: '^(feature|hotfix)/' });
    await create('/hooks', { url: system.base, branch_filter_strategy: 'regex', push_events_branch_filter: '(?i)^MAIN$' });
    await create(`/projects/${projectId}/hooks`, { url: last.base, branch_filter_strategy: 'regex', push_events_branch_filter: '^last$' });
    for (const branch of ['other', 'release/x', 'feature-x', 'main', 'feature/a', 'hot/release/2', 'hotfix/b', 'release/1.0', 'last']) await commit(branch);
    await waitUntil(() => project.requests.length >= 2 && group.requests.length >= 2 && refs(system).length >= 1 && last.requests.length >= 1, 'the matching pushes');
    // Each hook's deliveries go in order: once its last matching push has arrived, those before it were sent or dropped.
    assert.deepEqual(refs(project), ['refs/heads/hot/release/2', 'refs/heads/release/1.0']);
    assert.deepEqual(refs(group), ['refs/heads/feature/a', 'refs/heads/hotfix/b']);
    assert.deepEqual(refs(system), ['refs/heads/main']);
    assert.deepEqual(refs(last), ['refs/heads/last']);
    // A tag push is not filtered by branch (GitLab's filter is for branches).
    await create(`/projects/${projectId}/hooks`, { url: tags.base, push_events: false, tag_push_events: true, branch_filter_strategy: 'regex', push_events_branch_filter: '^nothing$' });
    const tag = await gantry.api('POST', `/projects/${projectId}/repository/tags`, { body: { tag_name: 'v1', ref: 'main' } });
    assert.equal(tag.status, 201, tag.text);
    await waitUntil(() => tags.requests.length >= 1, 'the tag push');
    assert.deepEqual(refs(tags), ['refs/tags/v1']);
  });
});

describe('regex branch filters with the deliveries in a thread', () => {
  it('matches in the delivery thread: the matching push is sent, the others dropped', async () => {
    const scratch = mkdtempSync(path.join(tmpdir(), 'gantry-regex-filter-'));
    // A SQLite file the thread can share (or the PostgreSQL database of the run).
    const gantry = await startTestCoordinator({
      extra: { ...(process.env.GANTRY_TEST_DATABASE_URL ? {} : { databaseUrl: path.join(scratch, 'gantry.sqlite3') }), ci: { taskPollIntervalMs: 50, hooks: { retryBaseMs: 100 } } },
    });
    const target = await hookReceiver();
    try {
      assert.equal(ciServicesOf(gantry.coordinator).hookWorker.mode, 'thread');
      assert.equal((await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } })).status, 200);
      const project = await gantry.api('POST', '/projects', { body: { name: 'threaded', initialize_with_readme: true } });
      const hooks = `/projects/${String(project.json.id)}/hooks`;
      assert.equal((await gantry.api('POST', hooks, { body: { url: target.base, branch_filter_strategy: 'regex', push_events_branch_filter: '^v\\d+-stable$' } })).status, 201);
      for (const branch of ['main', 'v1-stable-x', 'v2-stable']) {
        const made = await gantry.api('POST', `/projects/${String(project.json.id)}/repository/commits`, {
          body: { branch, start_branch: 'main', commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'x\n' }] },
        });
        assert.equal(made.status, 201, made.text);
      }
      await waitUntil(() => target.requests.length >= 1, 'the matching push', { timeoutMs: 60_000 });
      assert.deepEqual(target.requests.map((request) => request.body.ref), ['refs/heads/v2-stable']);
    } finally {
      await target.close();
      await gantry.close();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
