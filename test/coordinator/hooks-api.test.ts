import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { branchSelected, validWildcardFilter, wildcardMatches } from '../../src/coordinator/services/hooks/branch-filter.ts';
import { afterFailure, alertStatus, SUCCEEDED, type HookFailureState } from '../../src/coordinator/services/hooks/hook-state.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';

describe('project hooks API', () => {
  let fx: CiSettingsFixture;
  const url = (suffix = '') => `/projects/${fx.project.id}/hooks${suffix}`;
  const allowLocal = async (allowed: boolean) => {
    const changed = await fx.gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: allowed } });
    assert.equal(changed.status, 200, changed.text);
  };

  before(async () => {
    fx = await startCiSettingsFixture();
  });
  after(() => fx.close());

  it('adds a hook with GitLab\'s defaults (pushes only, TLS verified) and never shows its token', async () => {
    const created = await fx.gantry.api('POST', url(), { body: { url: 'https://hooks.example.com/in', token: 's3cret-token' }, token: fx.maintainer.token });
    assert.equal(created.status, 201, created.text);
    const hook = created.json;
    assert.equal(hook.url, 'https://hooks.example.com/in');
    assert.equal(hook.project_id, fx.project.id);
    assert.deepEqual([hook.push_events, hook.tag_push_events, hook.issues_events, hook.pipeline_events, hook.job_events, hook.releases_events], [true, false, false, false, false, false]);
    assert.deepEqual([hook.enable_ssl_verification, hook.alert_status, hook.disabled_until, hook.push_events_branch_filter, hook.branch_filter_strategy], [true, 'executable', null, null, 'wildcard']);
    assert.ok(!created.text.includes('s3cret-token'));
    assert.ok(!('token' in hook));
    const read = await fx.gantry.api('GET', url(`/${String(hook.id)}`), { token: fx.maintainer.token });
    assert.deepEqual(read.json, hook);
    const listed = await fx.gantry.api('GET', url(), { token: fx.maintainer.token });
    assert.deepEqual(listed.list.map((entry) => entry.id), [hook.id]);
    assert.equal(listed.headers['x-total'], '1');
  });

  it('sets every event flag from a form body, edits some, and deletes the hook', async () => {
    const form = { url: 'http://hooks.example.com/all', push_events: 'false', tag_push_events: 'true', issues_events: 'true', confidential_issues_events: '1', merge_requests_events: 'yes',
      note_events: 't', confidential_note_events: 'true', job_events: 'true', pipeline_events: 'true', wiki_page_events: 'true', deployment_events: 'true', releases_events: 'true',
      enable_ssl_verification: 'false', push_events_branch_filter: 'release/*' };
    const created = await fx.gantry.api('POST', url(), { form, token: fx.maintainer.token });
    assert.equal(created.status, 201, created.text);
    for (const flag of ['tag_push_events', 'issues_events', 'confidential_issues_events', 'merge_requests_events', 'note_events', 'confidential_note_events', 'job_events', 'pipeline_events', 'wiki_page_events', 'deployment_events', 'releases_events']) {
      assert.equal(created.json[flag], true, flag);
    }
    assert.deepEqual([created.json.push_events, created.json.enable_ssl_verification, created.json.push_events_branch_filter], [false, false, 'release/*']);
    const id = String(created.json.id);
    const edited = await fx.gantry.api('PUT', url(`/${id}`), { body: { push_events: true, note_events: false, url: 'http://hooks.example.com/moved' }, token: fx.maintainer.token });
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual([edited.json.push_events, edited.json.note_events, edited.json.issues_events, edited.json.url], [true, false, true, 'http://hooks.example.com/moved']);
    const removed = await fx.gantry.api('DELETE', url(`/${id}`), { token: fx.maintainer.token });
    assert.equal(removed.status, 204);
    const gone = await fx.gantry.api('GET', url(`/${id}`), { token: fx.maintainer.token });
    assert.deepEqual([gone.status, gone.json], [404, { message: '404 Not found' }]);
  });

  it('answers 401 without a token, 403 below Maintainer, 404 for an unknown hook or a project the caller cannot see', async () => {
    const hook = (await fx.gantry.api('POST', url(), { body: { url: 'https://hooks.example.com/x' }, token: fx.maintainer.token })).json;
    const anonymous = await fx.gantry.api('GET', url(), { token: null });
    assert.equal(anonymous.status, 401);
    for (const user of [fx.guest, fx.reporter, fx.developer]) {
      const denied = await fx.gantry.api('GET', url(), { token: user.token });
      assert.equal(denied.status, 403, user.username);
      const add = await fx.gantry.api('POST', url(), { body: { url: 'https://hooks.example.com/y' }, token: user.token });
      assert.equal(add.status, 403, user.username);
    }
    const stranger = await fx.gantry.api('GET', url(`/${String(hook.id)}`), { token: fx.stranger.token });
    assert.equal(stranger.status, 404);
    for (const [method, suffix] of [['GET', '/999999'], ['PUT', '/999999'], ['DELETE', '/999999'], ['GET', '/999999/events']] as const) {
      const missing = await fx.gantry.api(method, url(suffix), { body: method === 'PUT' ? { push_events: true } : undefined, token: fx.maintainer.token });
      assert.deepEqual([missing.status, missing.json], [404, { message: '404 Not found' }], `${method} ${suffix}`);
    }
    const otherProjectsHook = await fx.gantry.api('GET', `/projects/999999/hooks/${String(hook.id)}`, { token: fx.maintainer.token });
    assert.equal(otherProjectsHook.status, 404);
  });

  it('refuses a missing url (400), a malformed or non-http one and local addresses unless allowed (422 "Invalid url given")', async () => {
    const missing = await fx.gantry.api('POST', url(), { body: { push_events: true }, token: fx.maintainer.token });
    assert.deepEqual([missing.status, missing.json], [400, { error: 'url is missing' }]);
    for (const bad of ['not a url', 'ftp://hooks.example.com/', 'javascript:alert(1)', 'http://127.0.0.1:9/', 'http://localhost/', 'http://[::1]/', 'http://10.1.2.3/', 'http://169.254.169.254/latest']) {
      const refused = await fx.gantry.api('POST', url(), { body: { url: bad }, token: fx.maintainer.token });
      assert.deepEqual([refused.status, refused.json], [422, { message: 'Invalid url given' }], bad);
    }
    await allowLocal(true);
    try {
      const local = await fx.gantry.api('POST', url(), { body: { url: 'http://127.0.0.1:9/' }, token: fx.maintainer.token });
      assert.equal(local.status, 201, local.text);
    } finally {
      await allowLocal(false);
    }
  });

  it('refuses an invalid branch filter (422 "Invalid branch filter given")', async () => {
    for (const body of [{ push_events_branch_filter: 'bad name' }, { push_events_branch_filter: 'a..b' }, { push_events_branch_filter: '(x', branch_filter_strategy: 'regex' }]) {
      const refused = await fx.gantry.api('POST', url(), { body: { url: 'https://hooks.example.com/f', ...body }, token: fx.maintainer.token });
      assert.deepEqual([refused.status, refused.json], [422, { message: 'Invalid branch filter given' }], JSON.stringify(body));
    }
    const unknownStrategy = await fx.gantry.api('POST', url(), { body: { url: 'https://hooks.example.com/f', branch_filter_strategy: 'glob' }, token: fx.maintainer.token });
    assert.equal(unknownStrategy.status, 400);
  });
});

describe('wildcard branch filters', () => {
  it('match as GitLab\'s RefMatcher: exact without *, * spanning any characters (slashes too)', () => {
    assert.ok(wildcardMatches('main', 'main'));
    assert.ok(!wildcardMatches('main', 'main2'));
    assert.ok(wildcardMatches('release/*', 'release/1.0'));
    assert.ok(wildcardMatches('release/*', 'release/1/hotfix'));
    assert.ok(!wildcardMatches('release/*', 'releases/1'));
    assert.ok(wildcardMatches('*-stable', '13-0-stable'));
    assert.ok(wildcardMatches('feat*/*x', 'feature/a/box'));
    assert.ok(!wildcardMatches('feat*/*x', 'feature/a/boy'));
    assert.ok(wildcardMatches('*', ''));
    assert.ok(branchSelected('all_branches', 'main', 'other'));
    assert.ok(branchSelected('wildcard', null, 'any'));
    assert.ok(!branchSelected('wildcard', 'main', 'other'));
    assert.ok(validWildcardFilter('release/*'));
    assert.ok(!validWildcardFilter('has space'));
  });

  it('matches a long adversarial filter in bounded steps (no backtracking blow-up)', () => {
    const filter = `${'*a'.repeat(2000)}b`;
    const branch = 'a'.repeat(4000);
    assert.equal(wildcardMatches(filter, branch), false);
  });
});

describe('auto-disabling (GitLab\'s WebHooks::AutoDisabling)', () => {
  it('disables for a minute at the 4th failure in a row, doubles each further time up to a day, and for good at the 40th', () => {
    const now = Date.parse('2026-01-01T00:00:00.000Z');
    let state: HookFailureState = SUCCEEDED;
    const disabledFor: number[] = [];
    for (let failure = 1; failure <= 40; failure += 1) {
      state = afterFailure(state, now);
      if (failure < 4) assert.equal(alertStatus(state, now), 'executable', `failure ${failure}`);
      else if (failure < 40) disabledFor.push((Date.parse(state.disabled_until!) - now) / 60_000);
    }
    assert.deepEqual(disabledFor.slice(0, 12), [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1440]);
    assert.ok(disabledFor.slice(11).every((minutes) => minutes === 1440));
    assert.equal(alertStatus(state, now), 'disabled');
    assert.equal(state.recent_failures, 40);
    assert.equal(alertStatus({ ...SUCCEEDED, recent_failures: 5, disabled_until: new Date(now - 1).toISOString() }, now), 'executable', 'a disable that ended');
  });
});
