import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

describe('application settings validation', () => {
  let gantry: TestCoordinator;

  before(async () => {
    gantry = await startTestCoordinator();
  });
  after(() => gantry.close());

  beforeEach(async () => {
    await gantry.coordinator.context.stores.settings.save({}, new Date().toISOString());
    await gantry.coordinator.context.settings.update({});
  });

  async function put(body: Record<string, unknown>) {
    return gantry.api('PUT', '/application/settings', { body });
  }

  async function current(): Promise<Record<string, unknown>> {
    return (await gantry.api('GET', '/application/settings')).json;
  }

  describe('types', () => {
    const wrongTypes: Array<[string, unknown]> = [
      ['default_projects_limit', 'lots'],
      ['default_projects_limit', 1.5],
      ['max_attachment_size', true],
      ['signup_enabled', 'maybe'],
      ['signup_enabled', 7],
      ['polling_interval_multiplier', 'fast'],
      ['after_sign_up_text', { nested: 'object' }],
      ['domain_whitelist', { not: 'an array' }],
      ['domain_whitelist', [['nested']]],
    ];
    for (const [name, value] of wrongTypes) {
      it(`refuses ${name}=${JSON.stringify(value)} with 400 "${name} is invalid"`, async () => {
        const response = await put({ [name]: value });
        assert.equal(response.status, 400);
        assert.deepEqual(response.body, { error: `${name} is invalid` });
      });
    }

    it('stores nothing when one parameter of several is wrong', async () => {
      const response = await put({ signup_enabled: false, max_attachment_size: 'big' });
      assert.equal(response.status, 400);
      assert.equal((await current()).signup_enabled, true);
    });
  });

  describe('enumerations', () => {
    const invalidValues: Array<[string, unknown]> = [
      ['default_branch_protection', 3],
      ['default_branch_protection', -1],
      ['default_project_visibility', 'secret'],
      ['default_group_visibility', ''],
      ['default_snippet_visibility', 'PUBLIC'],
      ['restricted_visibility_levels', ['public', 'everyone']],
      ['enabled_git_access_protocol', 'ftp'],
      ['rsa_key_restriction', 512],
      ['rsa_key_restriction', 2000],
      ['dsa_key_restriction', 4096],
      ['ecdsa_key_restriction', 2048],
      ['ed25519_key_restriction', 384],
      ['repository_storages', ['default', 'elsewhere']],
      ['import_sources', ['git', 'nope']],
    ];
    for (const [name, value] of invalidValues) {
      it(`refuses ${name}=${JSON.stringify(value)} with "does not have a valid value"`, async () => {
        const response = await put({ [name]: value });
        assert.equal(response.status, 400);
        assert.deepEqual(response.body, { error: `${name} does not have a valid value` });
      });
    }

    it('accepts every listed key restriction', async () => {
      const accepted: Record<string, number[]> = {
        rsa_key_restriction: [-1, 0, 1024, 2048, 3072, 4096],
        dsa_key_restriction: [-1, 0, 1024, 2048, 3072],
        ecdsa_key_restriction: [-1, 0, 256, 384, 521],
        ed25519_key_restriction: [-1, 0, 256],
      };
      for (const [name, sizes] of Object.entries(accepted)) {
        for (const size of sizes) {
          const response = await put({ [name]: size });
          assert.equal(response.status, 200, `${name}=${size}`);
          assert.equal(response.json[name], size);
        }
      }
    });

    it('accepts each branch protection level', async () => {
      for (const level of [0, 1, 2]) assert.equal((await put({ default_branch_protection: level })).json.default_branch_protection, level);
    });
  });

  describe('bounds', () => {
    const outOfRange: Array<[Record<string, unknown>, string, string]> = [
      [{ max_attachment_size: 0 }, 'max_attachment_size', 'must be greater than 0'],
      [{ max_artifacts_size: -5 }, 'max_artifacts_size', 'must be greater than 0'],
      [{ default_projects_limit: -1 }, 'default_projects_limit', 'must be greater than or equal to 0'],
      [{ default_projects_limit: 2147483648 }, 'default_projects_limit', 'must be less than or equal to 2147483647'],
      [{ session_expire_delay: -1 }, 'session_expire_delay', 'must be greater than or equal to 0'],
      [{ polling_interval_multiplier: -0.5 }, 'polling_interval_multiplier', 'must be greater than or equal to 0'],
      [{ terminal_max_session_time: -1 }, 'terminal_max_session_time', 'must be greater than or equal to 0'],
      [{ two_factor_grace_period: -2 }, 'two_factor_grace_period', 'must be greater than or equal to 0'],
      [{ metrics_port: 70000 }, 'metrics_port', 'must be less than or equal to 65535'],
      [{ housekeeping_incremental_repack_period: 0 }, 'housekeeping_incremental_repack_period', 'must be greater than 0'],
      [{ housekeeping_full_repack_period: 5 }, 'housekeeping_full_repack_period', 'must be greater than or equal to 10'],
      [{ housekeeping_gc_period: 40 }, 'housekeeping_gc_period', 'must be greater than or equal to 50'],
      [{ home_page_url: 'not a url' }, 'home_page_url', 'must be a valid URL'],
      [{ help_page_support_url: 'ftp://example.com' }, 'help_page_support_url', 'must be a valid URL'],
      [{ admin_notification_email: 'nobody' }, 'admin_notification_email', 'is invalid'],
      [{ default_artifacts_expire_in: 'whenever' }, 'default_artifacts_expire_in', 'is not a correct duration'],
      [{ repository_storages: [] }, 'repository_storages', "can't be blank"],
    ];
    for (const [body, field, reason] of outOfRange) {
      it(`refuses ${JSON.stringify(body)}: ${field} ${reason}`, async () => {
        const response = await put(body);
        assert.equal(response.status, 400);
        assert.deepEqual(response.body, { message: { [field]: [reason] } });
      });
    }

    it('bounds the length of strings, free texts and arrays, and stores nothing past a bound', async () => {
      const tooLong: Array<[Record<string, unknown>, string, string]> = [
        [{ spamcheck_api_key: 'k'.repeat(256) }, 'spamcheck_api_key', 'is too long (maximum is 255 characters)'],
        [{ after_sign_up_text: 't'.repeat(10_001) }, 'after_sign_up_text', 'is too long (maximum is 10000 characters)'],
        [{ domain_whitelist: ['d'.repeat(256)] }, 'domain_whitelist', 'has an item that is too long (maximum is 255 characters)'],
        [{ domain_whitelist: Array.from({ length: 1001 }, (_, index) => `d${index}.example`) }, 'domain_whitelist', 'is too long (maximum is 1000 items)'],
      ];
      for (const [body, field, reason] of tooLong) {
        const response = await put({ ...body, signup_enabled: false });
        assert.equal(response.status, 400, field);
        assert.deepEqual(response.body, { message: { [field]: [reason] } });
      }
      const unchanged = await current();
      assert.equal(unchanged.signup_enabled, true);
      assert.equal(unchanged.after_sign_up_text, null);
      const atTheBounds = await put({ spamcheck_api_key: 'k'.repeat(255), sign_in_text: 't'.repeat(10_000), domain_whitelist: Array.from({ length: 1000 }, (_, index) => `d${index}.example`) });
      assert.equal(atTheBounds.status, 200);
      assert.equal(String(atTheBounds.json.sign_in_text).length, 10_000);
      assert.equal((atTheBounds.json.domain_whitelist as unknown[]).length, 1000);
    });

    it('checks lengths on what a request changes: a long value stored earlier does not block other changes', async () => {
      await gantry.coordinator.context.stores.settings.merge({ home_page_url: `https://example.com/${'p'.repeat(300)}` }, new Date().toISOString());
      await gantry.coordinator.context.settings.update({});
      const response = await put({ signup_enabled: false });
      assert.equal(response.status, 200);
      assert.equal(response.json.signup_enabled, false);
    });

    it('checks housekeeping periods against each other on the merged result', async () => {
      assert.equal((await put({ housekeeping_incremental_repack_period: 60 })).status, 400, 'incremental above the stored full period');
      const raised = await put({ housekeeping_incremental_repack_period: 60, housekeeping_full_repack_period: 60 });
      assert.equal(raised.status, 200);
      assert.equal(raised.json.housekeeping_gc_period, 200);
    });

    it('accepts durations and blank optional URLs', async () => {
      const response = await put({ default_artifacts_expire_in: '2 weeks', home_page_url: '', after_sign_out_path: 'https://example.com/bye' });
      assert.equal(response.status, 200);
      assert.equal(response.json.default_artifacts_expire_in, '2 weeks');
      assert.equal(response.json.home_page_url, '');
    });
  });

  describe('required when enabled', () => {
    const rules: Array<{ enable: string; required: Record<string, unknown> }> = [
      { enable: 'clientside_errortrack_enabled', required: { clientside_errortrack_dsn: 'https://key@errors.example.com/1' } },
      { enable: 'domain_blacklist_enabled', required: { domain_blacklist: ['spam.example'] } },
      { enable: 'ide_enabled', required: { ide_url: 'https://ide.example.com' } },
      { enable: 'diagram_enabled', required: { diagram_url: 'https://diagrams.example.com' } },
      { enable: 'captcha_enabled', required: { captcha_private_key: 'private', captcha_site_key: 'site' } },
      { enable: 'errortrack_enabled', required: { errortrack_dsn: 'https://key@errors.example.com/2' } },
      { enable: 'bgjobs_throttling_enabled', required: { bgjobs_throttling_factor: 0.5, bgjobs_throttling_queues: ['default'] } },
      { enable: 'unique_ips_limit_enabled', required: { unique_ips_limit_per_user: 5, unique_ips_limit_time_window: 600 } },
      {
        enable: 'metrics_enabled',
        required: {
          metrics_host: 'metrics.example.com', metrics_method_call_threshold: 10, metrics_packet_size: 1, metrics_pool_size: 16,
          metrics_sample_interval: 15, metrics_timeout: 10,
        },
      },
    ];

    for (const { enable, required } of rules) {
      const names = Object.keys(required);
      it(`${enable} requires ${names.join(', ')}`, async () => {
        const bare = await put({ [enable]: true });
        assert.equal(bare.status, 400);
        assert.deepEqual(bare.body, { error: `${names[0]} is missing` });
        assert.equal((await current())[enable], false, 'nothing stored');

        for (const name of names.slice(1)) {
          const partial = await put({ [enable]: true, ...required, [name]: undefined });
          assert.deepEqual(partial.body, { error: `${name} is missing` });
        }

        const complete = await put({ [enable]: true, ...required });
        assert.equal(complete.status, 200, complete.text);
        assert.equal(complete.json[enable], true);
        for (const [name, value] of Object.entries(required)) assert.deepEqual(complete.json[name], value);
      });
    }

    it('accepts enabling later when the required value was stored earlier', async () => {
      assert.equal((await put({ ide_url: 'https://ide.example.com' })).status, 200);
      const enabled = await put({ ide_enabled: true });
      assert.equal(enabled.status, 200);
      assert.equal(enabled.json.ide_url, 'https://ide.example.com');
    });

    it('refuses clearing a required value while its feature stays enabled', async () => {
      await put({ ide_enabled: true, ide_url: 'https://ide.example.com' });
      const cleared = await put({ ide_url: '' });
      assert.equal(cleared.status, 400);
      assert.deepEqual(cleared.body, { error: 'ide_url is missing' });
      const disabled = await put({ ide_enabled: false, ide_url: '' });
      assert.equal(disabled.status, 200);
    });

    it('treats an empty required array as missing', async () => {
      const response = await put({ domain_blacklist_enabled: true, domain_blacklist: [] });
      assert.deepEqual(response.body, { error: 'domain_blacklist is missing' });
    });

    it('keeps bgjobs_throttling_factor strictly between 0 and 1', async () => {
      for (const factor of [0, 1, 1.5, -0.1]) {
        const response = await put({ bgjobs_throttling_enabled: true, bgjobs_throttling_queues: ['q'], bgjobs_throttling_factor: factor });
        assert.equal(response.status, 400, `factor ${factor}`);
        const reason = factor <= 0 ? 'must be greater than 0' : 'must be less than 1';
        assert.deepEqual(response.body, { message: { bgjobs_throttling_factor: [reason] } });
      }
      const edge = await put({ bgjobs_throttling_enabled: true, bgjobs_throttling_queues: 'a,b', bgjobs_throttling_factor: '0.99' });
      assert.equal(edge.status, 200);
      assert.deepEqual(edge.json.bgjobs_throttling_queues, ['a', 'b']);
      assert.equal(edge.json.bgjobs_throttling_factor, 0.99);
    });

    it('reports a required value as missing before bounds', async () => {
      const response = await put({ unique_ips_limit_enabled: true, unique_ips_limit_per_user: 0 });
      assert.deepEqual(response.body, { error: 'unique_ips_limit_time_window is missing' });
    });
  });
});
