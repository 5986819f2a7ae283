import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

type Json = Record<string, unknown>;

/** The titles of a release's `milestones`, or undefined when the key is absent (as GitLab leaves it out). */
const titlesOf = (release: Json): string[] | undefined => (release.milestones as Json[] | undefined)?.map((milestone) => milestone.title as string);

describe('Releases API: milestones', () => {
  let gantry: TestCoordinator;
  let developer: TestUser;
  let base: string;
  let projectId: number;
  const milestoneIds: Record<string, number> = {};

  const putForm = (tag: string, payload: string) =>
    gantry.coordinator.app.inject({ method: 'PUT', url: `/api/v4${base}/${tag}`, headers: { 'private-token': developer.token, 'content-type': 'application/x-www-form-urlencoded' }, payload });

  before(async () => {
    gantry = await startTestCoordinator();
    developer = await makeUser(gantry, 'dev');
    const top = await makeGroup(gantry, 'top');
    const group = await makeGroup(gantry, 'acme', { parentId: top.id });
    const project = await makeProjectWithRepository(gantry, group.id, 'tool', { withReadme: true });
    projectId = project.id;
    await addMember(gantry, { type: 'project', id: project.id }, developer.id, 30);
    base = `/projects/${project.id}/releases`;
    const milestone = async (owner: string, title: string, extra: Json = {}) => {
      const created = await gantry.api('POST', `${owner}/milestones`, { body: { title, ...extra } });
      assert.equal(created.status, 201, created.text);
      milestoneIds[title] = created.json.id as number;
    };
    await milestone(`/projects/${project.id}`, 'v1', { due_date: '2026-03-01' });
    await milestone(`/projects/${project.id}`, 'v2');
    await milestone(`/groups/${group.id}`, 'q1');
    await milestone(`/groups/${top.id}`, 'yearly');
    const other = await makeProjectWithRepository(gantry, group.id, 'other');
    await milestone(`/projects/${other.id}`, 'elsewhere');
    const issue = async (extra: Json) => {
      const created = await gantry.api('POST', `/projects/${project.id}/issues`, { body: { title: 'work', milestone_id: milestoneIds.v1, ...extra } });
      assert.equal(created.status, 201, created.text);
      return created.json.iid as number;
    };
    await issue({});
    await issue({ confidential: true });
    const closed = await issue({});
    assert.equal((await gantry.api('PUT', `/projects/${project.id}/issues/${closed}`, { body: { state_event: 'close' } })).status, 200);
  });
  after(() => gantry.close());

  it('creates a release with project and group milestones, each with its issue_stats', async () => {
    const created = await gantry.api('POST', base, { token: developer.token, body: { tag_name: 'v1.0', ref: 'main', milestones: ['q1', 'v1'] } });
    assert.equal(created.status, 201, created.text);
    const [projectMilestone, groupMilestone] = created.json.milestones as Json[];
    const { created_at: _created, updated_at: _updated, ...fields } = projectMilestone!;
    assert.deepEqual(fields, {
      id: milestoneIds.v1, iid: 1, project_id: projectId, title: 'v1', description: null, state: 'active', due_date: '2026-03-01', start_date: null,
      expired: true, web_url: 'http://gantry.test/top/acme/tool/-/milestones/1', issue_stats: { total: 3, closed: 1 },
    });
    assert.equal(groupMilestone!.group_id, (await gantry.api('GET', '/groups/top%2Facme')).json.id);
    assert.equal(groupMilestone!.web_url, 'http://gantry.test/groups/top/acme/-/milestones/1');
    assert.deepEqual(groupMilestone!.issue_stats, { total: 0, closed: 0 });
    const keys = Object.keys(created.json);
    assert.equal(keys.indexOf('milestones'), keys.indexOf('upcoming_release') + 1, 'after upcoming_release, as GitLab orders the entity');
    const read = await gantry.api('GET', `${base}/v1.0`, { token: developer.token });
    assert.deepEqual(titlesOf(read.json), ['v1', 'q1']);
    assert.deepEqual(titlesOf((await gantry.api('GET', base)).list[0]!), ['v1', 'q1']);
  });

  it('leaves the key out of a release without milestones', async () => {
    const created = await gantry.api('POST', base, { token: developer.token, body: { tag_name: 'plain', ref: 'main', milestones: [] } });
    assert.equal(created.status, 201, created.text);
    assert.equal('milestones' in created.json, false);
  });

  it("refuses unknown titles, other projects' and the groups' above the project's own group, creating nothing", async () => {
    const unknown = await gantry.api('POST', base, { token: developer.token, body: { tag_name: 'v9', ref: 'main', milestones: ['v1', 'nope', 'yearly', 'elsewhere'] } });
    assert.deepEqual([unknown.status, unknown.json], [400, { message: 'Milestone(s) not found: nope, yearly, elsewhere' }]);
    assert.equal((await gantry.api('GET', `${base}/v9`)).status, 404);
    assert.equal((await gantry.api('GET', `/projects/${projectId}/repository/tags/v9`)).status, 404, 'the tag is not created either');
    const onUpdate = await gantry.api('PUT', `${base}/plain`, { token: developer.token, body: { milestones: ['V1'] } });
    assert.deepEqual([onUpdate.status, onUpdate.json], [400, { message: 'Milestone(s) not found: V1' }], 'titles match exactly');
  });

  it('replaces the milestones on update (form arrays and comma lists too), keeps them when the parameter is absent', async () => {
    const replaced = await putForm('plain', 'milestones[]=v2&milestones[]=v1');
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.deepEqual(titlesOf(replaced.json()), ['v1', 'v2']);
    const kept = await gantry.api('PUT', `${base}/plain`, { token: developer.token, body: { name: 'Plain' } });
    assert.deepEqual([kept.json.name, titlesOf(kept.json)], ['Plain', ['v1', 'v2']]);
    const commaList = await putForm('plain', 'milestones=q1,%20v2');
    assert.deepEqual(titlesOf(commaList.json()), ['v2', 'q1']);
    const commaItem = await gantry.api('PUT', `${base}/plain`, { token: developer.token, body: { milestones: ['v1, q1'] } });
    assert.deepEqual(titlesOf(commaItem.json), ['v1', 'q1'], 'each item is a comma list too, as GitLab splits them');
    const v1Release = await gantry.api('GET', `${base}/v1.0`);
    assert.deepEqual(titlesOf(v1Release.json), ['v1', 'q1'], 'a milestone belongs to several releases');
  });

  it('takes closed milestones', async () => {
    assert.equal((await gantry.api('PUT', `/projects/${projectId}/milestones/${milestoneIds.v2}`, { body: { state_event: 'close' } })).status, 200);
    const updated = await gantry.api('PUT', `${base}/plain`, { token: developer.token, body: { milestones: ['v2'] } });
    assert.deepEqual([updated.status, (updated.json.milestones as Json[])[0]!.state], [200, 'closed']);
  });

  it('removes them all with an empty list, as JSON or as a blank form item', async () => {
    const emptied = await gantry.api('PUT', `${base}/plain`, { token: developer.token, body: { milestones: [] } });
    assert.deepEqual([emptied.status, 'milestones' in emptied.json], [200, false]);
    assert.equal((await gantry.api('PUT', `${base}/plain`, { token: developer.token, body: { milestones: ['v2'] } })).status, 200);
    const blank = await putForm('plain', 'milestones[]=');
    assert.deepEqual([blank.statusCode, 'milestones' in blank.json()], [200, false]);
  });

  it('drops a deleted milestone from its releases; deleting a release leaves its milestones', async () => {
    assert.equal((await gantry.api('DELETE', `/groups/top%2Facme/milestones/${milestoneIds.q1}`)).status, 204);
    assert.deepEqual(titlesOf((await gantry.api('GET', `${base}/v1.0`)).json), ['v1']);
    const deleted = await gantry.api('DELETE', `${base}/v1.0`);
    assert.equal(deleted.status, 200);
    assert.equal('milestones' in deleted.json, false, 'GitLab reads the milestones of the deleted release: none');
    assert.equal((await gantry.api('GET', `/projects/${projectId}/milestones/${milestoneIds.v1}`)).status, 200);
    const again = await gantry.api('POST', base, { token: developer.token, body: { tag_name: 'v1.0', milestones: ['v1'] } });
    assert.deepEqual([again.status, titlesOf(again.json)], [201, ['v1']]);
  });

  it('lets its project be deleted with releases that have milestones', async () => {
    const deleted = await gantry.api('DELETE', `/projects/${projectId}`);
    assert.ok([202, 204].includes(deleted.status), String(deleted.status));
    const { stores } = gantry.coordinator.context;
    for (let waited = 0; (await stores.releases.listForProject(projectId)).length > 0 && waited < 5000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(await stores.releases.listForProject(projectId), []);
    assert.equal(await stores.milestones.findById(milestoneIds.v1!), undefined);
  });
});
