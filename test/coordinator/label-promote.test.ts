import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';
import { addMember, makeGroup, makeProject } from './groups-fixtures.ts';

describe('promoting a project label to its group', () => {
  let fx: CiSettingsFixture;
  let lib: ProjectRecord;
  let deep: ProjectRecord;

  const labelId = async (projectId: number, name: string, color = 'red'): Promise<number> => {
    const made = await fx.gantry.api('POST', `/projects/${projectId}/labels`, { body: { name, color } });
    assert.equal(made.status, 201, made.text);
    return Number(made.json.id);
  };
  const openIssue = async (projectId: number, labels: string): Promise<number> => {
    const made = await fx.gantry.api('POST', `/projects/${projectId}/issues`, { body: { title: `with ${labels}`, labels } });
    assert.equal(made.status, 201, made.text);
    return Number(made.json.iid);
  };
  const labelsOf = async (projectId: number, iid: number) => (await fx.gantry.api('GET', `/projects/${projectId}/issues/${iid}`)).json.labels;
  const promote = (projectId: number, label: string | number, token?: string) => fx.gantry.api('PUT', `/projects/${projectId}/labels/${label}/promote`, { token });

  before(async () => {
    fx = await startCiSettingsFixture();
    lib = await makeProject(fx.gantry, fx.group.id, 'lib');
    const sub = await makeGroup(fx.gantry, 'sub', { parentId: fx.group.id });
    deep = await makeProject(fx.gantry, sub.id, 'deep');
  });
  after(() => fx.close());

  it('needs Reporter on the project and Maintainer on the group, a project label of its own, and a group', async () => {
    const id = await labelId(fx.project.id, 'guarded');
    assert.deepEqual((await promote(fx.project.id, id, fx.guest.token)).status, 403);
    assert.deepEqual((await promote(fx.project.id, id, fx.maintainer.token)).json, { message: '403 Forbidden' });
    assert.deepEqual((await promote(fx.project.id, 999_999)).json, { message: '404 Label Not Found' });
    const groupLabel = await fx.gantry.api('POST', `/groups/${fx.group.id}/labels`, { body: { name: 'group-only', color: 'red' } });
    assert.deepEqual((await promote(fx.project.id, Number(groupLabel.json.id))).json, { message: '404 Label Not Found' });
    const root = await fx.gantry.coordinator.context.stores.namespaces.findByFullPath('root');
    assert.ok(root);
    const personal = await makeProject(fx.gantry, root.id, 'personal');
    const personalLabel = await labelId(personal.id, 'mine');
    const refused = await promote(personal.id, personalLabel);
    assert.deepEqual([refused.status, refused.json], [400, { message: 'Failed to promote project label to group label' }]);
    assert.equal((await fx.gantry.api('GET', `/projects/${fx.project.id}/labels/${id}`)).json.is_project_label, true);
  });

  it("keeps the label's id and merges the same-titled labels of the group's projects, relabelling their issues", async () => {
    const bug = await labelId(fx.project.id, 'bug', '#00ff00');
    const libBug = await labelId(lib.id, 'bug');
    const deepBug = await labelId(deep.id, 'bug');
    const appIssue = await openIssue(fx.project.id, 'bug');
    const libIssues = [await openIssue(lib.id, 'bug'), await openIssue(lib.id, 'bug,other')];
    const deepIssue = await openIssue(deep.id, 'bug');
    await addMember(fx.gantry, { type: 'namespace', id: fx.group.id }, fx.maintainer.id, 40);

    const promoted = await promote(fx.project.id, 'bug', fx.maintainer.token);
    assert.equal(promoted.status, 200, promoted.text);
    assert.deepEqual([promoted.json.id, promoted.json.name, promoted.json.color, promoted.json.is_project_label], [bug, 'bug', '#00FF00', undefined]);
    const groupLabels = (await fx.gantry.api('GET', `/groups/${fx.group.id}/labels`)).list.map((label) => [label.id, label.name]);
    assert.ok(groupLabels.some(([id]) => id === bug), JSON.stringify(groupLabels));
    assert.deepEqual((await fx.gantry.api('GET', `/projects/${lib.id}/labels/${libBug}`)).json, { message: '404 Label Not Found' });
    assert.deepEqual(await labelsOf(fx.project.id, appIssue), ['bug']);
    for (const iid of libIssues) assert.ok((await labelsOf(lib.id, iid) as string[]).includes('bug'), `lib#${iid}`);
    const libLinks = await fx.gantry.coordinator.context.db.selectFrom('issue_labels').select('label_id').where('label_id', 'in', [bug, libBug]).execute();
    assert.deepEqual(libLinks.map((row) => row.label_id), [bug, bug, bug]);
    // A subgroup's project is not the group's own: its label stays.
    assert.equal((await fx.gantry.api('GET', `/projects/${deep.id}/labels/${deepBug}`)).json.is_project_label, true);
    assert.deepEqual(await labelsOf(deep.id, deepIssue), ['bug']);
  });

  it('merges into a group label of the same title when there is one', async () => {
    const groupLabel = await fx.gantry.api('POST', `/groups/${fx.group.id}/labels`, { body: { name: 'feature', color: 'blue' } });
    const own = await labelId(fx.project.id, 'feature');
    const iid = await openIssue(fx.project.id, 'feature');
    const promoted = await promote(fx.project.id, own);
    assert.deepEqual([promoted.status, promoted.json.id], [200, groupLabel.json.id]);
    assert.deepEqual((await fx.gantry.api('GET', `/projects/${fx.project.id}/labels/${own}`)).json, { message: '404 Label Not Found' });
    assert.deepEqual(await labelsOf(fx.project.id, iid), ['feature']);
    const links = await fx.gantry.coordinator.context.db.selectFrom('issue_labels').select('label_id').where('label_id', 'in', [own, Number(groupLabel.json.id)]).execute();
    assert.deepEqual(links, [{ label_id: groupLabel.json.id }]);
  });
});
