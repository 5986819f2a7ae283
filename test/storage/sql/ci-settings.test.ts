import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isUniqueViolation } from '../../../src/storage/sql/database.ts';
import { INSTANCE_VARIABLES_OWNER, type CiVariableRecord } from '../../../src/storage/types-ci-settings.ts';
import type { NamespaceRecord, ProjectRecord } from '../../../src/storage/types.ts';
import { buildJob, createGroup, createPipeline, createProject, NOW, openCiTestDatabase, type CiTestDatabase } from './ci-fixtures.ts';

const LATER = '2026-11-23T00:00:00.000Z';

function variable(key: string, overrides: Partial<CiVariableRecord> = {}): CiVariableRecord {
  return { key, value: `${key} value`, variable_type: 'env_var', protected: false, masked: false, environment_scope: '*', raw: false, description: null, hidden: false, ...overrides };
}

describe('CI settings storage: variables, triggers, schedules, environments, deployments, artifacts', () => {
  let database: CiTestDatabase;
  let group: NamespaceRecord;
  let project: ProjectRecord;

  before(async () => {
    database = await openCiTestDatabase();
    group = await createGroup(database.stores, 'settings');
    project = await createProject(database.stores, group, 'app');
  });
  after(() => database.close());

  it('keeps project variables unique by key and environment scope', async () => {
    const { projectVariables } = database.stores;
    await projectVariables.create(project.id, variable('TOKEN', { protected: true, masked: true }), NOW);
    await projectVariables.create(project.id, variable('TOKEN', { environment_scope: 'production', value: 'prod' }), NOW);
    await projectVariables.create(project.id, variable('CONFIG', { variable_type: 'file' }), NOW);
    await assert.rejects(projectVariables.create(project.id, variable('TOKEN'), NOW), (error: unknown) => isUniqueViolation(error));
    assert.deepEqual((await projectVariables.list(project.id)).map((v) => [v.key, v.environment_scope]), [['TOKEN', '*'], ['TOKEN', 'production'], ['CONFIG', '*']]);
    assert.deepEqual(await projectVariables.find(project.id, 'TOKEN'), variable('TOKEN', { protected: true, masked: true }));
    assert.equal((await projectVariables.find(project.id, 'TOKEN', 'production'))?.value, 'prod');
    const updated = await projectVariables.update(project.id, 'TOKEN', 'production', { value: 'new', protected: true }, LATER);
    assert.deepEqual([updated?.value, updated?.protected, updated?.masked], ['new', true, false]);
    assert.equal(await projectVariables.update(project.id, 'NOPE', '*', { value: 'x' }, LATER), undefined);
    assert.equal(await projectVariables.delete(project.id, 'TOKEN', 'production'), true);
    assert.equal(await projectVariables.delete(project.id, 'TOKEN', 'production'), false);
  });

  it('keeps group variables per group and reads those of several groups at once', async () => {
    const { groupVariables } = database.stores;
    const child = await createGroup(database.stores, 'child', group);
    await groupVariables.create(group.id, variable('SHARED'), NOW);
    await groupVariables.create(child.id, variable('SHARED', { value: 'child wins' }), NOW);
    await assert.rejects(groupVariables.create(group.id, variable('SHARED'), NOW), (error: unknown) => isUniqueViolation(error));
    const byGroup = await groupVariables.listForOwners([group.id, child.id]);
    assert.equal(byGroup.get(group.id)?.[0].value, 'SHARED value');
    assert.equal(byGroup.get(child.id)?.[0].value, 'child wins');
    assert.equal((await groupVariables.update(child.id, 'SHARED', '*', { masked: true }, LATER))?.masked, true);
    assert.equal(await groupVariables.delete(child.id, 'SHARED', '*'), true);
    assert.deepEqual(await groupVariables.list(child.id), []);
  });

  it('keeps instance variables unique by key, with their raw flag, in one list', async () => {
    const { instanceVariables } = database.stores;
    assert.deepEqual(await instanceVariables.create(INSTANCE_VARIABLES_OWNER, variable('EVERYWHERE', { raw: true }), NOW), variable('EVERYWHERE', { raw: true }));
    await instanceVariables.create(INSTANCE_VARIABLES_OWNER, variable('PLAIN'), NOW);
    await assert.rejects(instanceVariables.create(INSTANCE_VARIABLES_OWNER, variable('PLAIN'), NOW), (error: unknown) => isUniqueViolation(error));
    assert.deepEqual(await instanceVariables.list(), [variable('EVERYWHERE', { raw: true }), variable('PLAIN', { raw: false })]);
    assert.equal(await instanceVariables.find(INSTANCE_VARIABLES_OWNER, 'PLAIN', 'production'), undefined, 'no environment scopes');
    const updated = await instanceVariables.update(INSTANCE_VARIABLES_OWNER, 'EVERYWHERE', '*', { raw: false, masked: true, value: 'changed1' }, LATER);
    assert.deepEqual(updated, variable('EVERYWHERE', { raw: false, masked: true, value: 'changed1' }));
    assert.equal(await instanceVariables.update(INSTANCE_VARIABLES_OWNER, 'NOPE', '*', { value: 'x' }, LATER), undefined);
    assert.equal(await instanceVariables.delete(INSTANCE_VARIABLES_OWNER, 'PLAIN', '*'), true);
    assert.equal(await instanceVariables.delete(INSTANCE_VARIABLES_OWNER, 'PLAIN', '*'), false);
    assert.deepEqual((await instanceVariables.list()).map((v) => v.key), ['EVERYWHERE']);
  });

  it('finds triggers by token and records their use', async () => {
    const { triggers } = database.stores;
    const trigger = await triggers.create({ project_id: project.id, token: 'trigger-token-1', description: 'deploy', owner_id: 1, created_at: NOW });
    assert.equal((await triggers.findByToken('trigger-token-1'))?.id, trigger.id);
    assert.equal(await triggers.findByToken('other'), undefined);
    assert.equal((await triggers.update(trigger.id, { last_used: LATER }))?.last_used, LATER);
    assert.deepEqual((await triggers.list(project.id)).map((t) => t.description), ['deploy']);
    assert.equal(await triggers.findInProject(project.id + 1000, trigger.id), undefined);
    assert.equal(await triggers.delete(trigger.id), true);
  });

  it('lists due schedules and lets one caller advance a schedule from one run time', async () => {
    const { schedules } = database.stores;
    const nightly = {
      project_id: project.id, description: 'nightly', ref: 'main', cron: '0 1 * * *', cron_timezone: 'UTC', next_run_at: '2026-11-22T01:00:00.000Z',
      active: true, owner_id: 1, created_at: NOW, updated_at: NOW,
    };
    const due = await schedules.create(nightly);
    await schedules.create({ ...nightly, description: 'paused', active: false });
    await schedules.create({ ...nightly, description: 'later', next_run_at: '2026-12-01T01:00:00.000Z' });
    assert.deepEqual((await schedules.listDue(NOW, 10)).map((s) => s.description), ['nightly']);
    const racers = await Promise.all([1, 2, 3].map(() => schedules.advance(due.id, '2026-11-22T01:00:00.000Z', '2026-11-23T01:00:00.000Z', NOW)));
    assert.deepEqual(racers.filter(Boolean).length, 1, 'exactly one creator');
    assert.deepEqual((await schedules.list(project.id, { active: true }, { offset: 0, limit: 10 })).items.map((s) => s.description), ['nightly', 'later']);
    await schedules.createVariable(due.id, { key: 'MODE', value: 'full', variable_type: 'env_var' }, NOW);
    await assert.rejects(schedules.createVariable(due.id, { key: 'MODE', value: 'x', variable_type: 'env_var' }, NOW), (error: unknown) => isUniqueViolation(error));
    assert.equal((await schedules.updateVariable(due.id, 'MODE', { value: 'quick' }, LATER))?.value, 'quick');
    assert.deepEqual(await schedules.listVariables(due.id), [{ key: 'MODE', value: 'quick', variable_type: 'env_var' }]);
    assert.equal(await schedules.deleteVariable(due.id, 'MODE'), true);
    assert.equal((await schedules.update(due.id, { active: false }))?.active, false);
  });

  it('keeps environments unique by name and numbers deployments per project', async () => {
    const { environments, deployments } = database.stores;
    const fields = { project_id: project.id, name: 'staging', slug: 'staging', external_url: null, state: 'available' as const, tier: 'staging' as const, created_at: NOW, updated_at: NOW };
    const staging = await environments.create(fields);
    await assert.rejects(environments.create({ ...fields, slug: 'other' }), (error: unknown) => isUniqueViolation(error));
    const review = await environments.create({ ...fields, name: 'review/x', slug: 'review-x-abcdef' });
    assert.deepEqual((await environments.list(project.id, { search: 'REV' }, { offset: 0, limit: 10 })).items.map((e) => e.id), [review.id]);
    assert.equal((await environments.update(review.id, { state: 'stopped' }))?.state, 'stopped');
    assert.deepEqual((await environments.list(project.id, { states: ['available'] }, { offset: 0, limit: 10 })).items.map((e) => e.name), ['staging']);

    const pipeline = await createPipeline(database.stores, project);
    const [job] = await database.stores.jobs.insertMany([buildJob(pipeline, 'deploy', { environment: 'staging' })]);
    const base = { project_id: project.id, environment_id: staging.id, job_id: job.id, ref: 'main', tag: false, sha: pipeline.sha, user_id: 1, on_stop: null, created_at: NOW, updated_at: NOW, finished_at: null };
    const first = await deployments.create({ ...base, status: 'success' });
    const second = await deployments.create({ ...base, status: 'running' });
    assert.deepEqual([first.iid, second.iid], [1, 2]);
    assert.equal((await deployments.findByJob(job.id))?.id, second.id);
    assert.equal((await deployments.lastSuccessful([staging.id, review.id])).get(staging.id)?.id, first.id);
    await deployments.update(second.id, { status: 'success', finished_at: LATER });
    assert.equal((await deployments.lastSuccessful([staging.id])).get(staging.id)?.id, second.id);
    assert.equal((await deployments.listForEnvironment(staging.id, { offset: 0, limit: 1 })).total, 2);
    assert.equal(await environments.delete(staging.id), true);
    assert.equal(await deployments.findById(first.id), undefined, 'deployments go with their environment');
  });

  it('keeps an environment\'s tier and auto-stop time, lists the available ones past it, soonest first, and stops one only while it is due', async () => {
    const { environments } = database.stores;
    const fields = { project_id: project.id, external_url: null, state: 'available' as const, tier: 'development' as const, created_at: NOW, updated_at: NOW };
    const later = await environments.create({ ...fields, name: 'auto/later', slug: 'auto-later', auto_stop_at: '2026-03-01T12:00:00.000Z' });
    const sooner = await environments.create({ ...fields, name: 'auto/sooner', slug: 'auto-sooner', auto_stop_at: '2026-03-01T10:00:00.000Z' });
    const stopped = await environments.create({ ...fields, name: 'auto/stopped', slug: 'auto-stopped', state: 'stopped', auto_stop_at: '2026-03-01T09:00:00.000Z' });
    const future = await environments.create({ ...fields, name: 'auto/future', slug: 'auto-future', auto_stop_at: '2026-03-02T00:00:00.000Z' });
    const never = await environments.create({ ...fields, name: 'auto/never', slug: 'auto-never' });
    assert.deepEqual([later.tier, later.auto_stop_at, never.auto_stop_at], ['development', '2026-03-01T12:00:00.000Z', null]);
    const listed = await environments.listAutoStopDue('2026-03-01T12:00:00.000Z', 10);
    assert.deepEqual(listed.map((environment) => environment.id), [sooner.id, later.id], 'not the stopped one, nor one due later or never');
    assert.deepEqual((await environments.listAutoStopDue('2026-03-01T12:00:00.000Z', 1)).map((environment) => environment.id), [sooner.id]);
    const changed = await environments.update(later.id, { tier: 'production', auto_stop_at: null });
    assert.deepEqual([changed?.tier, changed?.auto_stop_at], ['production', null]);
    assert.deepEqual((await environments.listAutoStopDue('2026-03-03T00:00:00.000Z', 10)).map((environment) => environment.id), [sooner.id, future.id]);
    assert.equal(await environments.stopIfDue(future.id, '2026-03-01T12:00:00.000Z'), undefined, 'not due yet');
    assert.equal(await environments.stopIfDue(stopped.id, '2026-03-03T00:00:00.000Z'), undefined, 'stopped already');
    assert.equal(await environments.stopIfDue(never.id, '2026-03-03T00:00:00.000Z'), undefined, 'no auto-stop time');
    const due = await environments.stopIfDue(sooner.id, '2026-03-03T00:00:00.000Z');
    assert.deepEqual([due?.state, due?.auto_stop_at, due?.updated_at], ['stopped', null, '2026-03-03T00:00:00.000Z']);
    assert.equal(await environments.stopIfDue(sooner.id, '2026-03-03T00:00:00.000Z'), undefined, 'once');
    for (const environment of [later, sooner, stopped, future, never]) await environments.delete(environment.id);
  });

  it('keeps one artifact per job and type with its zip members and their locations, and finds expired ones', async () => {
    const { jobArtifacts, jobs } = database.stores;
    const pipeline = await createPipeline(database.stores, project);
    const [job] = await jobs.insertMany([buildJob(pipeline, 'build')]);
    const archive = { job_id: job.id, project_id: project.id, file_type: 'archive', file_format: 'zip' as const, file_name: 'artifacts.zip', size: 3_000_000_000, sha256: 'c'.repeat(64), path: `artifacts/${project.id}/${job.id}/artifacts.zip`, expire_at: '2026-11-23T00:00:00.000Z', created_at: NOW };
    const entries = [
      { path: 'out/', kind: 'directory' as const, size: 0, compressed_size: 0, crc32: 0, mode: 0o40755, modified_at: null, header_offset: null, compression: null },
      { path: 'out/a.txt', kind: 'file' as const, size: 5, compressed_size: 7, crc32: 0xffffffff, mode: 0o100644, modified_at: NOW, header_offset: 5_000_000_000, compression: 8 },
      { path: 'out/B.txt', kind: 'file' as const, size: 6, compressed_size: 8, crc32: 1, mode: 0o100644, modified_at: NOW, header_offset: 0, compression: 0 },
      { path: 'OUT/c.txt', kind: 'file' as const, size: 1, compressed_size: 1, crc32: 2, mode: 0o100644, modified_at: NOW, header_offset: 100, compression: 8 },
    ];
    const saved = await jobArtifacts.save(archive, entries);
    assert.equal(saved.artifact.size, 3_000_000_000, 'sizes past 2 GiB');
    assert.equal(saved.replacedPath, null);
    assert.deepEqual(await jobArtifacts.findEntry(saved.artifact.id, 'out/a.txt'), entries[1], 'offsets past 4 GiB');
    assert.deepEqual(await jobArtifacts.findEntry(saved.artifact.id, 'out/'), entries[0], 'no location recorded');
    assert.deepEqual((await jobArtifacts.listEntries(saved.artifact.id, 'out/', { offset: 0, limit: 10 })).map((e) => e.path), ['out/', 'out/B.txt', 'out/a.txt'], 'case-sensitive prefix, byte order');
    assert.equal((await jobArtifacts.listEntries(saved.artifact.id, '', { offset: 0, limit: 10 })).length, 4);
    assert.deepEqual((await jobArtifacts.listEntries(saved.artifact.id, 'out/', { offset: 0, limit: 10 }, 'out/B.txt')).map((e) => e.path), ['out/B.txt', 'out/a.txt'], 'from a path on, inclusive, in byte order');
    assert.deepEqual((await jobArtifacts.listEntries(saved.artifact.id, '', { offset: 0, limit: 10 }, 'out0')).map((e) => e.path), [], 'past the out/ subtree');
    const reindexed = entries.slice(0, 3).map((entry, index) => ({ ...entry, header_offset: 1000 + index, compression: 0 }));
    await jobArtifacts.replaceEntries(saved.artifact.id, [...reindexed, ...reindexed.map((entry) => ({ ...entry, path: `again/${entry.path}` }))]);
    assert.deepEqual(await jobArtifacts.findEntry(saved.artifact.id, 'out/'), reindexed[0]);
    assert.equal(await jobArtifacts.findEntry(saved.artifact.id, 'OUT/c.txt'), undefined, 'a member left out of the new records is gone');
    assert.equal((await jobArtifacts.listEntries(saved.artifact.id, '', { offset: 0, limit: 10 })).length, 6);

    const replaced = await jobArtifacts.save({ ...archive, path: `${archive.path}.2`, size: 10 });
    assert.equal(replaced.replacedPath, archive.path);
    assert.equal(await jobArtifacts.findEntry(saved.artifact.id, 'out/a.txt'), undefined, 'members go with the replaced record');
    await jobArtifacts.save({ ...archive, file_type: 'junit', file_format: 'gzip', path: 'junit.gz', expire_at: null });
    assert.deepEqual((await jobArtifacts.listExpired('2026-11-24T00:00:00.000Z', 10)).map((a) => a.file_type), ['archive']);
    await jobArtifacts.clearExpiry(job.id);
    assert.deepEqual(await jobArtifacts.listExpired('2026-11-24T00:00:00.000Z', 10), []);
    assert.deepEqual((await jobArtifacts.listForJobs([job.id])).map((a) => a.file_type).sort(), ['archive', 'junit']);
    assert.deepEqual((await jobArtifacts.deleteForJob(job.id, ['junit'])), ['junit.gz']);
    assert.deepEqual(await jobArtifacts.deleteForJob(job.id), [`${archive.path}.2`]);
  });
});
