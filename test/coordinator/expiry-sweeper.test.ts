import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCoordinator } from '../../src/coordinator/app.ts';
import { ExpirySweeper } from '../../src/coordinator/services/namespaces/expiry-sweeper.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProject, makeUser } from './groups-fixtures.ts';

const TODAY = '2030-06-15';

describe('expired memberships and shares', () => {
  let gantry: TestCoordinator;

  before(async () => {
    gantry = await startTestCoordinator();
  });
  after(() => gantry.close());

  it('removes members and shares on or after their expiry date, keeping group owners', async () => {
    const { stores } = gantry.coordinator.context;
    const group = (await makeGroup(gantry, 'home')).id;
    const team = (await makeGroup(gantry, 'team')).id;
    const project = (await makeProject(gantry, group, 'app')).id;
    const users = {} as Record<string, number>;
    for (const name of ['expired', 'today', 'later', 'owner', 'forever']) users[name] = (await makeUser(gantry, name)).id;
    await addMember(gantry, { type: 'project', id: project }, users.expired!, 30, '2030-06-14');
    await addMember(gantry, { type: 'namespace', id: group }, users.today!, 30, TODAY);
    await addMember(gantry, { type: 'project', id: project }, users.later!, 30, '2030-06-16');
    await addMember(gantry, { type: 'namespace', id: group }, users.owner!, 50, '2030-01-01');
    await addMember(gantry, { type: 'project', id: project }, users.forever!, 30);
    await stores.projectGroupLinks.add({ project_id: project, group_id: team, group_access: 20, expires_at: '2030-06-01', created_at: new Date().toISOString() });
    await stores.groupGroupLinks.add({ shared_group_id: group, shared_with_group_id: team, group_access: 20, expires_at: TODAY, created_at: new Date().toISOString() });

    const sweeper = new ExpirySweeper(stores.members, stores.projectGroupLinks, stores.groupGroupLinks, silentLogger());
    assert.deepEqual(await sweeper.sweep(TODAY), { members: 2, shares: 2 });
    const remaining = [...(await stores.members.listForSource('project', project)), ...(await stores.members.listForSource('namespace', group))];
    const names = Object.fromEntries(Object.entries(users).map(([name, id]) => [id, name]));
    assert.deepEqual(remaining.map((member) => names[member.user_id]).filter(Boolean).sort(), ['forever', 'later', 'owner']);
    assert.equal(await stores.projectGroupLinks.find(project, team), undefined);
    assert.deepEqual(await stores.groupGroupLinks.listForSharedGroups([group]), []);
    assert.deepEqual(await sweeper.sweep(TODAY), { members: 0, shares: 0 });
  });
});

describe('the coordinator sweeps expired memberships when it starts', () => {
  let dataDir: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'gantry-expiry-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('drops a membership that expired while it was stopped', async () => {
    const first = await createCoordinator({ dataDir, rootToken: 'root-expiry-token' });
    const { stores, accounts } = first.context;
    const user = await accounts.createUser({ username: 'leaver', name: 'Leaver', email: 'leaver@example.com', projects_limit: 10, is_admin: false, can_create_group: true, external: false });
    const now = new Date().toISOString();
    await stores.members.add({ source_type: 'project', source_id: 1, user_id: user.id, access_level: 30, notification_level: 3, expires_at: '2000-01-01', created_by_id: null, created_at: now, updated_at: now });
    assert.equal((await stores.members.listForUser(user.id, 'project')).length, 1);
    await first.close();

    const second = await createCoordinator({ dataDir });
    try {
      assert.deepEqual(await second.context.stores.members.listForUser(user.id, 'project'), []);
    } finally {
      await second.close();
    }
  });
});
