import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createGroup, createProject, NOW, openCiTestDatabase, type CiTestDatabase } from './ci-fixtures.ts';

describe('Runner registration tokens and runner list filters (storage)', () => {
  let database: CiTestDatabase;

  before(async () => {
    database = await openCiTestDatabase();
  });
  after(() => database.close());

  it("finds projects by runners_token, leaving out projects being deleted", async () => {
    const { registrationTokens } = database.stores;
    const group = await createGroup(database.stores, 'tokens');
    const live = await createProject(database.stores, group, 'live', { runners_token: 'GR1348941live-token' });
    await createProject(database.stores, group, 'dying', { runners_token: 'GR1348941dying-token', pending_delete: true });
    assert.equal(await registrationTokens.projectIdByRunnersToken('GR1348941live-token'), live.id);
    assert.equal(await registrationTokens.projectIdByRunnersToken('GR1348941dying-token'), undefined);
    assert.equal(await registrationTokens.projectIdByRunnersToken('GR1348941live-toke'), undefined);
  });

  it('gives a group its token once (first come wins), replaces it on reset and drops it with the group', async () => {
    const { registrationTokens, namespaces } = database.stores;
    const group = await createGroup(database.stores, 'group-tokens');
    assert.equal(await registrationTokens.groupIdByRunnersToken('GR1348941group-a'), undefined);
    assert.equal(await registrationTokens.groupRunnersToken(group.id, 'GR1348941group-a', NOW), 'GR1348941group-a');
    assert.equal(await registrationTokens.groupRunnersToken(group.id, 'GR1348941group-b', NOW), 'GR1348941group-a', 'an existing token is kept');
    assert.equal(await registrationTokens.groupIdByRunnersToken('GR1348941group-a'), group.id);
    await registrationTokens.setGroupRunnersToken(group.id, 'GR1348941group-c', NOW);
    assert.equal(await registrationTokens.groupIdByRunnersToken('GR1348941group-a'), undefined);
    assert.equal(await registrationTokens.groupIdByRunnersToken('GR1348941group-c'), group.id);
    const other = await createGroup(database.stores, 'group-tokens-2');
    await assert.rejects(registrationTokens.setGroupRunnersToken(other.id, 'GR1348941group-c', NOW), 'tokens are unique');
    await namespaces.delete(group.id);
    assert.equal(await registrationTokens.groupIdByRunnersToken('GR1348941group-c'), undefined);
  });

  it('lists runners by last contact (offline, never) and with shared ones beside a project', async () => {
    const { runners } = database.stores;
    const group = await createGroup(database.stores, 'filters');
    const project = await createProject(database.stores, group, 'filtered');
    const online = await runners.create({ runner_type: 'project_type', created_at: NOW, contacted_at: '2026-11-22T09:30:00.000Z' }, 'filter-online', { projectIds: [project.id] });
    const offline = await runners.create({ runner_type: 'project_type', created_at: NOW, contacted_at: '2026-11-22T07:00:00.000Z' }, 'filter-offline', { projectIds: [project.id] });
    const never = await runners.create({ runner_type: 'group_type', created_at: NOW }, 'filter-never', { namespaceId: group.id });
    const shared = await runners.create({ runner_type: 'instance_type', created_at: NOW }, 'filter-shared');
    const ids = async (filter: object) => (await runners.list(filter, { offset: 0, limit: 50 })).items.map((runner) => runner.id);
    const mine = { projectIds: [project.id], namespaceIds: [group.id] };
    assert.deepEqual(await ids({ ...mine, lastContactedNotAfter: '2026-11-22T08:00:00.000Z' }), [offline.id]);
    assert.deepEqual(await ids({ ...mine, neverContacted: true }), [never.id]);
    assert.deepEqual(await ids({ ...mine, contactedAfter: '2026-11-22T08:00:00.000Z' }), [online.id]);
    assert.deepEqual(await ids({ ...mine, orInstanceType: true, neverContacted: true }), [shared.id, never.id]);
    assert.ok((await ids({ projectIds: [], orInstanceType: true })).includes(shared.id), 'shared runners even for a project without its own');
    assert.deepEqual(await ids({ projectIds: [], namespaceIds: [group.id] }), [never.id], 'one empty owner list does not empty the other');
    assert.deepEqual(await ids({ projectIds: [], namespaceIds: [] }), []);
  });
});
