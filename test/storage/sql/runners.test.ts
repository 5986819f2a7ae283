import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../../src/storage/types.ts';
import { buildJob, createGroup, createPipeline, createProject, NOW, openCiTestDatabase, type CiTestDatabase } from './ci-fixtures.ts';

describe('Runners storage', () => {
  let database: CiTestDatabase;
  let first: ProjectRecord;
  let second: ProjectRecord;

  before(async () => {
    database = await openCiTestDatabase();
    const group = await createGroup(database.stores, 'runners');
    first = await createProject(database.stores, group, 'first');
    second = await createProject(database.stores, group, 'second');
  });
  after(() => database.close());

  it('keeps only a digest and the short prefix of the token, and finds runners by token', async () => {
    const { runners } = database.stores;
    const runner = await runners.create({ runner_type: 'instance_type', description: 'shared', tag_list: ['linux', 'docker', 'linux'], created_at: NOW }, 'glrt-secret-token-1');
    assert.equal(runner.token_prefix, 'glrt-sec');
    assert.deepEqual(runner.tag_list, ['docker', 'linux']);
    assert.deepEqual([runner.active, runner.run_untagged, runner.locked, runner.access_level], [true, true, false, 'not_protected']);
    assert.equal((await runners.findByToken('glrt-secret-token-1'))?.id, runner.id);
    assert.equal(await runners.findByToken('glrt-secret-token-2'), undefined);
    const stored = await database.opened.db.selectFrom('ci_runners').select('token_digest').where('id', '=', runner.id).executeTakeFirstOrThrow();
    assert.match(stored.token_digest, /^[0-9a-f]{64}$/);
    assert.equal(stored.token_digest.includes('secret'), false);

    const reset = await runners.resetToken(runner.id, 'glrt-another-token', NOW);
    assert.equal(reset?.token_prefix, 'glrt-ano');
    assert.equal(await runners.findByToken('glrt-secret-token-1'), undefined, 'the old token stops working');
    assert.equal((await runners.findByToken('glrt-another-token'))?.id, runner.id);
  });

  it('records heartbeats and updates', async () => {
    const { runners } = database.stores;
    const runner = await runners.create({ runner_type: 'instance_type', created_at: NOW }, 'heartbeat-token');
    await runners.heartbeat(runner.id, { version: '13.12.0', platform: 'linux', architecture: 'amd64', ip_address: '10.0.0.1', name: undefined }, '2026-11-22T10:00:00.000Z');
    const seen = await runners.findById(runner.id);
    assert.deepEqual([seen?.version, seen?.platform, seen?.architecture, seen?.ip_address, seen?.contacted_at], ['13.12.0', 'linux', 'amd64', '10.0.0.1', '2026-11-22T10:00:00.000Z']);
    const paused = await runners.update(runner.id, { active: false, tag_list: ['b', 'a'], access_level: 'ref_protected', maximum_timeout: 3600 });
    assert.deepEqual([paused?.active, paused?.tag_list, paused?.access_level, paused?.maximum_timeout], [false, ['a', 'b'], 'ref_protected', 3600]);
  });

  it('links project runners to projects and group runners to groups, and lists by those and by state', async () => {
    const { runners } = database.stores;
    const group = await createGroup(database.stores, 'owners');
    const projectRunner = await runners.create({ runner_type: 'project_type', tag_list: ['gpu'], created_at: NOW }, 'project-runner-token', { projectIds: [first.id] });
    const groupRunner = await runners.create({ runner_type: 'group_type', created_at: NOW, contacted_at: '2026-11-22T09:00:00.000Z' }, 'group-runner-token', { namespaceId: group.id });
    assert.deepEqual(await runners.projectIds(projectRunner.id), [first.id]);
    assert.equal(await runners.assignProject(projectRunner.id, second.id, NOW), true);
    assert.equal(await runners.assignProject(projectRunner.id, second.id, NOW), false, 'already enabled');
    assert.deepEqual(await runners.projectIds(projectRunner.id), [first.id, second.id]);
    assert.deepEqual(await runners.namespaceIds(groupRunner.id), [group.id]);

    const ids = async (filter: object) => (await runners.list(filter, { offset: 0, limit: 50 })).items.map((runner) => runner.id);
    assert.deepEqual(await ids({ projectIds: [second.id] }), [projectRunner.id]);
    assert.deepEqual(await ids({ projectIds: [second.id], namespaceIds: [group.id] }), [groupRunner.id, projectRunner.id]);
    assert.deepEqual(await ids({ types: ['group_type'] }), [groupRunner.id]);
    assert.deepEqual(await ids({ tagList: ['gpu'] }), [projectRunner.id]);
    assert.deepEqual(await ids({ contactedAfter: '2026-11-22T08:00:00.000Z', types: ['group_type', 'project_type'] }), [groupRunner.id]);
    assert.deepEqual(await ids({ notContactedAfter: '2026-11-22T08:00:00.000Z', types: ['group_type', 'project_type'] }), [projectRunner.id]);
    assert.deepEqual(await ids({ projectIds: [] }), []);

    assert.equal(await runners.unassignProject(projectRunner.id, first.id), true);
    assert.deepEqual((await runners.projectIdsOf([projectRunner.id, groupRunner.id])).get(projectRunner.id), [second.id]);
  });

  it('leaves a deleted runner\'s jobs in place without it', async () => {
    const { runners, jobs } = database.stores;
    const runner = await runners.create({ runner_type: 'project_type', created_at: NOW }, 'doomed-runner-token', { projectIds: [first.id] });
    const pipeline = await createPipeline(database.stores, first);
    const [job] = await jobs.insertMany([buildJob(pipeline, 'ran', { status: 'success', runner_id: runner.id })]);
    assert.deepEqual((await jobs.list({ runnerId: runner.id }, { offset: 0, limit: 5 })).items.map((listed) => listed.id), [job.id]);
    assert.equal(await runners.delete(runner.id), true);
    assert.equal((await jobs.findById(job.id))?.runner_id, null);
    assert.deepEqual(await runners.projectIds(runner.id), []);
  });
});
