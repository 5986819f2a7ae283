import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';

/**
 * Project and group variables' later GitLab fields: `masked_and_hidden` (17.4: created masked
 * and hidden, the value never in an answer again, hidden for good), `raw` (15.7) and
 * `description` (16.2, at most 255 characters).
 */
const SECRET = 'c2VjcmV0X3ZhbHVl';
const HIDDEN_MASKED_CHANGE = { message: { base: ['Updating masked attribute is not allowed on updates for hidden variables.'] } };

for (const owner of ['project', 'group'] as const) {
  describe(`${owner} CI variables: hidden, raw and description`, () => {
    let fx: CiSettingsFixture;
    const url = (suffix = '') => `/${owner}s/${owner === 'project' ? fx.project.id : fx.group.id}/variables${suffix}`;
    const stored = async (key: string) => {
      const { stores } = fx.gantry.coordinator.context;
      const found = owner === 'project' ? await stores.projectVariables.find(fx.project.id, key) : await stores.groupVariables.find(fx.group.id, key);
      assert.ok(found, key);
      return found;
    };

    before(async () => {
      fx = await startCiSettingsFixture();
    });
    after(() => fx.close());

    it('creates a masked_and_hidden variable masked and hidden, its value null in the create, get and list answers', async () => {
      const created = await fx.gantry.api('POST', url(), { body: { key: 'HIDDEN', value: SECRET, masked_and_hidden: true, masked: false } });
      assert.equal(created.status, 201, created.text);
      const expected = { key: 'HIDDEN', value: null, variable_type: 'env_var', hidden: true, protected: false, masked: true, raw: false, environment_scope: '*', description: null };
      assert.deepEqual(created.json, expected);
      const one = await fx.gantry.api('GET', url('/HIDDEN'));
      assert.deepEqual([one.status, one.json], [200, expected]);
      const list = await fx.gantry.api('GET', url());
      assert.deepEqual(list.list, [expected]);
      assert.equal((await stored('HIDDEN')).value, SECRET, 'the value is kept for the jobs');
    });

    it('updates a hidden variable answering value null; refuses to unmask it with GitLab message; keeps it hidden', async () => {
      const updated = await fx.gantry.api('PUT', url('/HIDDEN'), { body: { value: `${SECRET}Mg`, description: 'rotated' } });
      assert.equal(updated.status, 200, updated.text);
      assert.deepEqual([updated.json.value, updated.json.hidden, updated.json.masked, updated.json.description], [null, true, true, 'rotated']);
      assert.equal((await stored('HIDDEN')).value, `${SECRET}Mg`);
      const unmask = await fx.gantry.api('PUT', url('/HIDDEN'), { body: { value: 'plain text', masked: false } });
      assert.deepEqual([unmask.status, unmask.json], [400, HIDDEN_MASKED_CHANGE]);
      const sameMask = await fx.gantry.api('PUT', url('/HIDDEN'), { body: { value: `${SECRET}Mw`, masked: true } });
      assert.deepEqual([sameMask.status, sameMask.json.value, sameMask.json.hidden], [200, null, true], 'masked unchanged is no change');
      const unhide = await fx.gantry.api('PUT', url('/HIDDEN'), { body: { value: `${SECRET}NA`, hidden: false, masked_and_hidden: false } });
      assert.deepEqual([unhide.status, unhide.json.value, unhide.json.hidden, unhide.json.masked], [200, null, true, true], 'no update parameter unhides');
      assert.equal((await stored('HIDDEN')).value, `${SECRET}NA`);
    });

    it('refuses an unmaskable masked_and_hidden value; without masked_and_hidden (or with `hidden`) nothing is hidden', async () => {
      const unmaskable = await fx.gantry.api('POST', url(), { body: { key: 'BAD', value: 'short', masked_and_hidden: true } });
      assert.deepEqual([unmaskable.status, unmaskable.json], [400, { message: { value: ['is invalid'] } }]);
      const notHidden = await fx.gantry.api('POST', url(), { body: { key: 'SHOWN', value: SECRET, masked_and_hidden: false, hidden: true } });
      assert.deepEqual([notHidden.status, notHidden.json.value, notHidden.json.hidden, notHidden.json.masked], [201, SECRET, false, false]);
      const unmask = await fx.gantry.api('PUT', url('/SHOWN'), { body: { value: SECRET, masked: true } });
      assert.deepEqual([unmask.status, unmask.json.masked], [200, true]);
      const remask = await fx.gantry.api('PUT', url('/SHOWN'), { body: { value: SECRET, masked: false } });
      assert.deepEqual([remask.status, remask.json.masked], [200, false], 'a visible variable is masked and unmasked at will');
    });

    it('takes raw and a description of at most 255 characters on create and update', async () => {
      const created = await fx.gantry.api('POST', url(), { form: { key: 'RAW', value: '$KEEP_ME', raw: 'true', description: 'd'.repeat(255) } });
      assert.deepEqual([created.status, created.json.raw, created.json.description, created.json.value], [201, true, 'd'.repeat(255), '$KEEP_ME']);
      const long = await fx.gantry.api('POST', url(), { body: { key: 'LONG', value: 'v', description: 'd'.repeat(256) } });
      assert.deepEqual([long.status, long.json], [400, { message: { description: ['is too long (maximum is 255 characters)'] } }]);
      const longUpdate = await fx.gantry.api('PUT', url('/RAW'), { body: { value: 'v', description: 'é'.repeat(256) } });
      assert.deepEqual([longUpdate.status, longUpdate.json], [400, { message: { description: ['is too long (maximum is 255 characters)'] } }]);
      const blank = await fx.gantry.api('POST', url(), { body: { key: 'BLANK', value: 'v', description: ' '.repeat(300) } });
      assert.equal(blank.status, 201, 'a blank description is not measured (allow_blank)');
      const updated = await fx.gantry.api('PUT', url('/RAW'), { body: { value: '$KEEP_ME', raw: false, description: 'changed' } });
      assert.deepEqual([updated.status, updated.json.raw, updated.json.description], [200, false, 'changed']);
      const cleared = await fx.gantry.api('PUT', url('/RAW'), { body: { value: '$KEEP_ME', description: null } });
      assert.deepEqual([cleared.status, cleared.json.description, cleared.json.raw], [200, null, false]);
      assert.deepEqual(await fx.gantry.api('GET', url('/RAW')).then((one) => one.json), cleared.json);
    });
  });
}
