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
    // GitLab's short sha of a `glrt-` token: the 9 characters after the prefix.
    assert.equal(runner.token_prefix, 'secret-to');
    assert.equal(runner.token_expires_at, null);
    assert.equal(runner.maintenance_note, '');
    assert.equal(runner.registration_type, 'registration_token');
    assert.deepEqual(runner.tag_list, ['docker', 'linux']);
    assert.deepEqual([runner.active, runner.run_untagged, runner.locked, runner.access_level], [true, true, false, 'not_protected']);
    assert.equal((await runners.findByToken('glrt-secret-token-1'))?.id, runner.id);
    assert.equal(await runners.findByToken('glrt-secret-token-2'), undefined);
    const stored = await database.opened.db.selectFrom('ci_runners').select('token_digest').where('id', '=', runner.id).executeTakeFirstOrThrow();
    assert.match(stored.token_digest, /^[0-9a-f]{64}$/);
    assert.equal(stored.token_digest.includes('secret'), false);

    const reset = await runners.resetToken(runner.id, 'glrt-another-token', NOW, '2030-01-01T00:00:00.000Z');
    assert.equal(reset?.token_prefix, 'another-t');
    assert.equal(reset?.token_expires_at, '2030-01-01T00:00:00.000Z');
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

  it('keeps one manager per (runner, system id), updated in place, gone with its runner', async () => {
    const { runners, runnerManagers } = database.stores;
    const runner = await runners.create({ runner_type: 'instance_type', created_at: NOW }, 'glrt-managed-runner-token');
    const first = await runnerManagers.record(runner.id, 's_0123456789ab', { version: '18.11.0', platform: 'linux', ip_address: '10.0.0.1', features: { cancel_gracefully: true } }, NOW);
    assert.deepEqual(
      [first.system_id, first.version, first.platform, first.ip_address, first.features, first.created_at, first.contacted_at],
      ['s_0123456789ab', '18.11.0', 'linux', '10.0.0.1', { cancel_gracefully: true }, NOW, NOW],
    );
    const later = '2026-11-22T09:30:00.000Z';
    const again = await runnerManagers.record(runner.id, 's_0123456789ab', { version: '18.11.1', ip_address: '10.0.0.2' }, later);
    assert.equal(again.id, first.id, 'the same host is the same manager');
    assert.deepEqual([again.version, again.platform, again.ip_address, again.features, again.created_at, again.contacted_at], ['18.11.1', 'linux', '10.0.0.2', { cancel_gracefully: true }, NOW, later]);
    const legacy = await runnerManagers.record(runner.id, '<legacy>', { version: '13.12.0' }, NOW);
    assert.notEqual(legacy.id, first.id);
    assert.deepEqual((await runnerManagers.listByRunner(runner.id)).map((manager) => manager.system_id), ['s_0123456789ab', '<legacy>'], 'most recently in touch first');
    assert.equal(await runnerManagers.delete(runner.id, '<legacy>'), true);
    assert.equal(await runnerManagers.delete(runner.id, '<legacy>'), false);
    assert.equal(await runners.delete(runner.id), true);
    assert.deepEqual(await runnerManagers.listByRunner(runner.id), []);
    assert.equal(await runnerManagers.find(runner.id, 's_0123456789ab'), undefined);
  });
});
