import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';

describe('labels API', () => {
  let fx: CiSettingsFixture;
  const url = (suffix = '') => `/projects/${fx.project.id}/labels${suffix}`;
  const names = (list: Array<Record<string, unknown>>) => list.map((label) => label.name);

  before(async () => {
    fx = await startCiSettingsFixture();
  });
  after(() => fx.close());

  it('lets a Reporter create labels with hex or named colours (201), GitLab-shaped', async () => {
    const created = await fx.gantry.api('POST', url(), { body: { name: 'bug', color: 'red', description: 'Broken', priority: 2 }, token: fx.reporter.token });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json, {
      id: created.json.id, name: 'bug', color: '#FF0000', text_color: '#FFFFFF', description: 'Broken', subscribed: false, priority: 2, is_project_label: true,
    });
    const short = await fx.gantry.api('POST', url(), { form: { name: 'feature', color: '#fe9' } });
    assert.deepEqual([short.status, short.json.color, short.json.text_color, short.json.description, short.json.priority], [201, '#FFEE99', '#333333', null, null]);
    const long = await fx.gantry.api('POST', url(), { body: { name: 'needs review', color: '#00aa88' } });
    assert.deepEqual([long.status, long.json.color], [201, '#00AA88']);
  });

  it('refuses bad colours, commas, duplicates and missing parameters with GitLab bodies', async () => {
    for (const color of ['#12345', 'rouge', '123456', '#ggg', '']) {
      const refused = await fx.gantry.api('POST', url(), { body: { name: 'x', color } });
      const expected = color === '' ? { error: 'color is missing' } : { message: { color: ['must be a valid color code'] } };
      assert.deepEqual([refused.status, refused.json], [400, expected], color);
    }
    const comma = await fx.gantry.api('POST', url(), { body: { name: 'a,b', color: 'red' } });
    assert.deepEqual([comma.status, comma.json], [400, { message: { title: ['is invalid'] } }]);
    const negative = await fx.gantry.api('POST', url(), { body: { name: 'low', color: 'red', priority: -1 } });
    assert.deepEqual([negative.status, negative.json], [400, { message: { priority: ['must be greater than or equal to 0'] } }]);
    const missing = await fx.gantry.api('POST', url(), { body: { color: 'red' } });
    assert.deepEqual([missing.status, missing.json], [400, { error: 'name is missing' }]);
    const duplicate = await fx.gantry.api('POST', url(), { body: { name: 'bug', color: 'blue' } });
    assert.deepEqual([duplicate.status, duplicate.json], [409, { message: 'Label already exists' }]);
  });

  it('lets only Reporters and up change labels; strangers and anonymous callers do not learn of the project', async () => {
    const guest = await fx.gantry.api('POST', url(), { body: { name: 'g', color: 'red' }, token: fx.guest.token });
    assert.deepEqual([guest.status, guest.json], [403, { message: '403 Forbidden' }]);
    const stranger = await fx.gantry.api('GET', url(), { token: fx.stranger.token });
    assert.deepEqual([stranger.status, stranger.json], [404, { message: '404 Project Not Found' }]);
    const anonymous = await fx.gantry.api('POST', url(), { body: { name: 'g', color: 'red' }, token: null });
    assert.equal(anonymous.status, 401);
    const guestList = await fx.gantry.api('GET', url(), { token: fx.guest.token });
    assert.deepEqual(names(guestList.list), ['bug', 'feature', 'needs review']);
  });

  it('lists with search and pagination, shows group labels, and gets one by id or name', async () => {
    const groupLabel = await fx.gantry.api('POST', `/groups/${fx.group.id}/labels`, { body: { name: 'area/ci', color: 'navy' } });
    assert.deepEqual([groupLabel.status, groupLabel.json.color, 'priority' in groupLabel.json], [201, '#000080', false]);
    const list = await fx.gantry.api('GET', url(), { token: fx.reporter.token });
    assert.deepEqual([list.headers['x-total'], names(list.list)], ['4', ['area/ci', 'bug', 'feature', 'needs review']]);
    assert.equal(list.list[0]!.is_project_label, false);
    assert.deepEqual(names((await fx.gantry.api('GET', url('?include_ancestor_groups=false'))).list), ['bug', 'feature', 'needs review']);
    assert.deepEqual(names((await fx.gantry.api('GET', url('?search=FEAT'))).list), ['feature']);
    assert.deepEqual(names((await fx.gantry.api('GET', url('?per_page=2&page=2'))).list), ['feature', 'needs review']);
    const byName = await fx.gantry.api('GET', url(`/${encodeURIComponent('needs review')}`), { token: fx.guest.token });
    assert.deepEqual([byName.status, byName.json.name], [200, 'needs review']);
    const byId = await fx.gantry.api('GET', url(`/${String(byName.json.id)}`));
    assert.equal(byId.json.name, 'needs review');
    const groupByName = await fx.gantry.api('GET', url(`/${encodeURIComponent('area/ci')}`));
    assert.deepEqual([groupByName.status, groupByName.json.is_project_label], [200, false]);
    const missing = await fx.gantry.api('GET', url('/nothing'));
    assert.deepEqual([missing.status, missing.json], [404, { message: '404 Label Not Found' }]);
  });

  it('counts opened and closed issues per label when asked, hiding confidential ones from Guests', async () => {
    const { issues, labels } = fx.gantry.coordinator.context.stores;
    const [bug] = await labels.findByTitles({ projectIds: [fx.project.id], groupIds: [] }, ['bug']);
    const now = new Date().toISOString();
    const issue = (state: 'opened' | 'closed', confidential: boolean) => ({
      project_id: fx.project.id, author_id: fx.developer.id, title: 't', description: null, state, confidential, discussion_locked: null,
      milestone_id: null, due_date: null, time_estimate: 0, total_time_spent: 0, closed_at: null, closed_by_id: null, created_at: now, updated_at: now,
    });
    for (const [state, confidential] of [['opened', false], ['opened', true], ['closed', false]] as const) {
      await issues.create(issue(state, confidential), { labelIds: [bug!.id] });
    }
    const counted = (token: string) => fx.gantry.api('GET', url('?with_counts=true&search=bug'), { token });
    const reporter = (await counted(fx.reporter.token)).list[0]!;
    assert.deepEqual([reporter.open_issues_count, reporter.closed_issues_count, reporter.open_merge_requests_count], [2, 1, 0]);
    const guest = (await counted(fx.guest.token)).list[0]!;
    assert.deepEqual([guest.open_issues_count, guest.closed_issues_count], [1, 1]);
    const group = (await fx.gantry.api('GET', `/groups/${fx.group.id}/labels?with_counts=true`)).list;
    assert.deepEqual(group.map((label) => [label.name, label.open_issues_count]), [['area/ci', 0]]);
  });

  it('updates by name or id (rename, colour, priority) and refuses a taken name or an empty update', async () => {
    const renamed = await fx.gantry.api('PUT', url(), { body: { name: 'feature', new_name: 'enhancement', color: 'green' }, token: fx.reporter.token });
    assert.deepEqual([renamed.status, renamed.json.name, renamed.json.color], [200, 'enhancement', '#008000']);
    const byId = await fx.gantry.api('PUT', url(`/${String(renamed.json.id)}`), { body: { priority: 5, description: null } });
    assert.deepEqual([byId.status, byId.json.priority, byId.json.description], [200, 5, null]);
    const taken = await fx.gantry.api('PUT', url('/enhancement'), { body: { new_name: 'bug' } });
    assert.deepEqual([taken.status, taken.json], [400, { message: { title: ['has already been taken'] } }]);
    const empty = await fx.gantry.api('PUT', url('/enhancement'), { body: {} });
    assert.deepEqual([empty.status, empty.json], [400, { error: 'new_name, color, description, priority are missing, at least one parameter must be provided' }]);
    const badColor = await fx.gantry.api('PUT', url('/enhancement'), { body: { color: 'nope' } });
    assert.deepEqual(badColor.json, { message: { color: ['must be a valid color code'] } });
    const groupViaProject = await fx.gantry.api('PUT', url(`/${encodeURIComponent('area/ci')}`), { body: { color: 'red' } });
    assert.deepEqual([groupViaProject.status, groupViaProject.json], [404, { message: '404 Label Not Found' }]);
  });

  it('reads digits in the path as an id, and by-name routes as a name', async () => {
    const digits = await fx.gantry.api('POST', url(), { body: { name: '42', color: 'red' } });
    assert.equal(digits.status, 201);
    assert.equal((await fx.gantry.api('GET', url('/42'))).status, 404);
    assert.equal((await fx.gantry.api('GET', url(`/${String(digits.json.id)}`))).json.name, '42');
    const renamed = await fx.gantry.api('PUT', url(), { body: { name: '42', new_name: 'forty-two' } });
    assert.deepEqual([renamed.status, renamed.json.id], [200, digits.json.id]);
    assert.equal((await fx.gantry.api('DELETE', url('?name=forty-two'))).status, 204);
  });

  it('deletes by name or id (204), then answers 404', async () => {
    const byName = await fx.gantry.api('DELETE', url('?name=enhancement'), { token: fx.reporter.token });
    assert.equal(byName.status, 204);
    const bug = await fx.gantry.api('GET', url('/bug'));
    assert.equal((await fx.gantry.api('DELETE', url(`/${String(bug.json.id)}`))).status, 204);
    assert.equal((await fx.gantry.api('DELETE', url('/bug'))).status, 404);
    assert.deepEqual(names((await fx.gantry.api('GET', url())).list), ['area/ci', 'needs review']);
    const groupDelete = await fx.gantry.api('DELETE', `/groups/${fx.group.id}/labels/${encodeURIComponent('area/ci')}`, { token: fx.reporter.token });
    assert.equal(groupDelete.status, 403);
    assert.equal((await fx.gantry.api('DELETE', `/groups/${fx.group.id}/labels?name=area%2Fci`)).status, 204);
  });
});
