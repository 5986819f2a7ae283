import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { SettingsService } from '../../src/coordinator/services/instance/settings.ts';
import { defaultSettingValues, SETTING_DEFINITIONS, SETTINGS_SCHEMA } from '../../src/coordinator/services/instance/settings/schema.ts';
import { validateSettings } from '../../src/coordinator/services/instance/settings/validate.ts';
import { openDatabase } from '../../src/storage/sql/database.ts';
import { migrateToLatest } from '../../src/storage/sql/migrate.ts';
import { createSqlStores } from '../../src/storage/sql/stores/index.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

/** A non-administrator made through the accounts service, so this file does not depend on POST /users. */
async function plainUser(gantry: TestCoordinator, username: string): Promise<string> {
  const user = await gantry.coordinator.context.accounts.createUser({ username, name: username, email: `${username}@example.com`, projects_limit: 10 });
  return gantry.coordinator.context.accounts.issueToken(user.id, 'test');
}

describe('application settings schema table', () => {
  it('names each setting once, and every "required when" names a boolean setting', () => {
    assert.equal(SETTING_DEFINITIONS.size, SETTINGS_SCHEMA.length);
    for (const definition of SETTING_DEFINITIONS.values()) {
      if (definition.requiredWhen) assert.equal(SETTING_DEFINITIONS.get(definition.requiredWhen)?.kind, 'boolean', definition.name);
      if (definition.atLeastSetting) assert.equal(SETTING_DEFINITIONS.get(definition.atLeastSetting)?.kind, 'integer', definition.name);
    }
  });

  it('has defaults that pass its own rules', () => {
    for (const definition of SETTING_DEFINITIONS.values()) {
      if (definition.values && definition.default !== null) {
        const items = Array.isArray(definition.default) ? definition.default : [definition.default];
        for (const item of items) assert.ok(definition.values.includes(item as string | number), `${definition.name} default ${String(item)}`);
      }
    }
    assert.doesNotThrow(() => validateSettings({ changes: {}, stored: {}, merged: defaultSettingValues() }));
  });
});

describe('settings in memory', () => {
  it('are at hand without a promise only while fresh', async () => {
    const opened = openDatabase(':memory:');
    await migrateToLatest(opened.db, opened.dialect);
    let now = 1_000;
    const settings = new SettingsService(createSqlStores(opened.db).settings, { maxAgeMs: 5_000, clock: () => now });
    assert.equal(settings.peek(), undefined);
    const values = await settings.values();
    assert.equal(settings.peek(), values);
    now += 4_999;
    assert.equal(settings.peek(), values);
    now += 1;
    assert.equal(settings.peek(), undefined);
    await opened.close();
  });

  it('answer the last copy read while the database cannot be read, and fail without one', async () => {
    const opened = openDatabase(':memory:');
    await migrateToLatest(opened.db, opened.dialect);
    let now = 1_000;
    const settings = new SettingsService(createSqlStores(opened.db).settings, { maxAgeMs: 1_000, clock: () => now });
    await settings.update({ max_artifacts_size: 7 });
    await opened.db.destroy();
    now += 60_000;
    assert.equal((await settings.values()).max_artifacts_size, 7, 'the last copy, long after it aged');
    const unread = new SettingsService(createSqlStores(opened.db).settings);
    await assert.rejects(unread.values(), 'no copy to fall back on');
  });

  it('are forgotten when any coordinator announces a change, and after a gap in listening', async () => {
    const opened = openDatabase(':memory:');
    await migrateToLatest(opened.db, opened.dialect);
    const listeners: Array<(event: 'changed' | 'gap') => void> = [];
    let announcements = 0;
    const changes = { announce: () => void (announcements += 1), subscribe: (listener: (event: 'changed' | 'gap') => void) => void listeners.push(listener) };
    const hear = (event: 'changed' | 'gap') => listeners.forEach((listener) => listener(event));
    const settings = new SettingsService(createSqlStores(opened.db).settings, { maxAgeMs: 600_000, changes });
    await settings.values();
    assert.notEqual(settings.peek(), undefined);
    hear('changed');
    assert.equal(settings.peek(), undefined, 'another coordinator changed them');
    await settings.values();
    hear('gap');
    assert.equal(settings.peek(), undefined, 'changes may have been missed while not listening');
    await settings.update({ max_artifacts_size: 5 });
    assert.equal(announcements, 1, 'its own change is announced');
    assert.equal(settings.peek()?.max_artifacts_size, 5);
    // A copy read before an announcement arrived is not kept.
    hear('changed');
    const loading = settings.values();
    hear('changed');
    await loading;
    assert.equal(settings.peek(), undefined);
    await opened.close();
  });
});

describe('application settings', () => {
  let gantry: TestCoordinator;
  let userToken: string;

  before(async () => {
    gantry = await startTestCoordinator();
    userToken = await plainUser(gantry, 'settings-user');
  });
  after(() => gantry.close());

  /** Every test starts from the defaults. */
  beforeEach(async () => {
    await gantry.coordinator.context.stores.settings.save({}, new Date().toISOString());
    await gantry.coordinator.context.settings.update({});
  });

  async function put(body: Record<string, unknown>) {
    return gantry.api('PUT', '/application/settings', { body });
  }

  describe('access', () => {
    it('answers 401 without a token and with a wrong token', async () => {
      assert.equal((await gantry.api('GET', '/application/settings', { token: null })).status, 401);
      assert.equal((await gantry.api('PUT', '/application/settings', { token: null, body: { signup_enabled: false } })).status, 401);
      const wrong = await gantry.api('GET', '/application/settings', { token: 'not-a-token' });
      assert.equal(wrong.status, 401);
      assert.deepEqual(wrong.body, { message: '401 Unauthorized' });
    });

    it('answers 403 to a non-administrator and changes nothing', async () => {
      const read = await gantry.api('GET', '/application/settings', { token: userToken });
      assert.equal(read.status, 403);
      assert.deepEqual(read.body, { message: '403 Forbidden' });
      const write = await gantry.api('PUT', '/application/settings', { token: userToken, body: { signup_enabled: false } });
      assert.equal(write.status, 403);
      assert.equal((await gantry.api('GET', '/application/settings')).json.signup_enabled, true);
    });
  });

  describe('GET', () => {
    it('shows the documented defaults', async () => {
      const response = await gantry.api('GET', '/application/settings');
      assert.equal(response.status, 200);
      const settings = response.json;
      const expected: Record<string, unknown> = {
        id: 1,
        default_branch_protection: 2,
        default_project_visibility: 'private',
        default_group_visibility: 'private',
        default_snippet_visibility: 'private',
        default_projects_limit: 100000,
        restricted_visibility_levels: null,
        signup_enabled: true,
        password_authentication_enabled_for_web: true,
        password_authentication_enabled_for_git: true,
        ide_enabled: false,
        diagram_enabled: false,
        rsa_key_restriction: 0,
        dsa_key_restriction: 0,
        ecdsa_key_restriction: 0,
        ed25519_key_restriction: 0,
        domain_whitelist: null,
        max_attachment_size: 10,
        session_expire_delay: 10080,
        repository_storages: ['default'],
        polling_interval_multiplier: 1,
        terminal_max_session_time: 0,
        two_factor_grace_period: 48,
        housekeeping_incremental_repack_period: 10,
        housekeeping_full_repack_period: 50,
        housekeeping_gc_period: 200,
        enabled_git_access_protocol: null,
        metrics_enabled: false,
      };
      for (const [key, value] of Object.entries(expected)) assert.deepEqual(settings[key], value, key);
      assert.match(String(settings.created_at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.match(String(settings.updated_at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });

    it('shows every parameter of the table', async () => {
      const settings = (await gantry.api('GET', '/application/settings')).json;
      for (const { name } of SETTINGS_SCHEMA) assert.ok(name in settings, `${name} is missing from the read`);
    });
  });

  describe('PUT', () => {
    it('changes settings, keeps them across reads and moves updated_at', async () => {
      const before = (await gantry.api('GET', '/application/settings')).json;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const response = await put({
        signup_enabled: false,
        default_projects_limit: 42,
        default_project_visibility: 'internal',
        default_branch_protection: 0,
        polling_interval_multiplier: 2.5,
        after_sign_up_text: 'Welcome',
        home_page_url: 'https://example.com/home',
        rsa_key_restriction: 2048,
        ed25519_key_restriction: -1,
      });
      assert.equal(response.status, 200);
      assert.equal(response.json.signup_enabled, false);
      assert.equal(response.json.default_projects_limit, 42);
      assert.equal(response.json.polling_interval_multiplier, 2.5);
      assert.notEqual(response.json.updated_at, before.updated_at);
      assert.equal(response.json.created_at, before.created_at);
      const read = (await gantry.api('GET', '/application/settings')).json;
      assert.equal(read.default_project_visibility, 'internal');
      assert.equal(read.default_branch_protection, 0);
      assert.equal(read.after_sign_up_text, 'Welcome');
      assert.equal(read.rsa_key_restriction, 2048);
      assert.equal(read.ed25519_key_restriction, -1);
      assert.equal(read.signup_enabled, false, 'earlier changes stay');
      const values = await gantry.coordinator.context.settings.values();
      assert.equal(values.default_projects_limit, 42, 'the service sees the change');
    });

    it('accepts form-encoded values: booleans, integers, decimals and name[] arrays', async () => {
      const response = await gantry.api('PUT', '/application/settings', {
        form: { signup_enabled: 'false', max_attachment_size: '25', polling_interval_multiplier: '0.5' },
      });
      assert.equal(response.status, 200);
      assert.deepEqual([response.json.signup_enabled, response.json.max_attachment_size, response.json.polling_interval_multiplier], [false, 25, 0.5]);
      const arrays = await gantry.api('PUT', '/application/settings?restricted_visibility_levels[]=public&restricted_visibility_levels[]=internal');
      assert.equal(arrays.status, 200);
      assert.deepEqual(arrays.json.restricted_visibility_levels, ['public', 'internal']);
      assert.equal(await gantry.coordinator.context.settings.isVisibilityRestricted('public'), true);
      assert.equal(await gantry.coordinator.context.settings.isVisibilityRestricted('private'), false);
    });

    it('accepts arrays as JSON arrays or comma-separated strings, and numeric visibility levels', async () => {
      const json = await put({ domain_whitelist: ['example.com', 'example.org'], import_sources: 'git, gitlab_project' });
      assert.equal(json.status, 200);
      assert.deepEqual(json.json.domain_whitelist, ['example.com', 'example.org']);
      assert.deepEqual(json.json.import_sources, ['git', 'gitlab_project']);
      const numeric = await put({ restricted_visibility_levels: '20' });
      assert.deepEqual(numeric.json.restricted_visibility_levels, ['public']);
      const cleared = await put({ restricted_visibility_levels: null, domain_whitelist: null });
      assert.equal(cleared.json.restricted_visibility_levels, null);
      assert.equal(cleared.json.domain_whitelist, null);
    });

    it('ignores unknown parameters', async () => {
      const response = await put({ no_such_setting: 'x', signup_enabled: false });
      assert.equal(response.status, 200);
      assert.equal('no_such_setting' in response.json, false);
      assert.equal(response.json.signup_enabled, false);
    });

    it('maps enabled_git_access_protocol "" and "nil" to null (both protocols)', async () => {
      assert.equal((await put({ enabled_git_access_protocol: 'ssh' })).json.enabled_git_access_protocol, 'ssh');
      assert.equal((await put({ enabled_git_access_protocol: 'nil' })).json.enabled_git_access_protocol, null);
      await put({ enabled_git_access_protocol: 'http' });
      assert.equal((await put({ enabled_git_access_protocol: '' })).json.enabled_git_access_protocol, null);
    });
  });
});
