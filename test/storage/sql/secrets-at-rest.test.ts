import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import { isGantryError } from '../../../src/shared/errors.ts';
import { SEALED_PREFIX, SecretBox } from '../../../src/storage/secret-box.ts';
import { dialectOf, inTransaction } from '../../../src/storage/sql/database.ts';
import { checkSecretKey, SEALED_COLUMNS, sealStoredSecrets, unsealedBatch } from '../../../src/storage/sql/secrets-at-rest.ts';
import { createSqlStores, type SqlStores } from '../../../src/storage/sql/stores/index.ts';
import { HOOK_EVENT_FLAGS, type HookEvents, type HookSettings } from '../../../src/storage/types-hooks.ts';
import { INSTANCE_VARIABLES_OWNER } from '../../../src/storage/types-ci-settings.ts';
import { INTEGRATION_EVENT_FLAGS, type IntegrationEvents } from '../../../src/storage/types-integrations.ts';
import { buildJob, createGroup, createPipeline, createProject, NOW, openCiTestDatabase, type CiTestDatabase } from './ci-fixtures.ts';

/**
 * Secrets at rest, on the database the tests run on: the stores seal what they write and open
 * what they read; the start-up pass seals rows stored in clear or with an older key; the key
 * check refuses a coordinator with another key.
 */
const SECRET = 'hunter2-secret-value';

function hookSettings(url: string, token: string | null): HookSettings {
  const events = Object.fromEntries(HOOK_EVENT_FLAGS.map((flag) => [flag, flag === 'push_events'])) as HookEvents;
  return {
    url, name: 'h', description: '', token, enable_ssl_verification: true, push_events_branch_filter: null, branch_filter_strategy: 'wildcard',
    events, repository_update_events: false, subgroup_events: false, member_events: false,
  };
}

const integrationEvents = Object.fromEntries(INTEGRATION_EVENT_FLAGS.map((flag) => [flag, true])) as IntegrationEvents;

async function rawValues(database: CiTestDatabase, table: string, column: string): Promise<Array<string | null>> {
  const { rows } = await sql<{ stored: string | null }>`SELECT ${sql.ref(column)} AS stored FROM ${sql.table(table)} ORDER BY 1`.execute(database.opened.db);
  return rows.map((row) => row.stored);
}

async function assertNoPlaintext(database: CiTestDatabase, table: string, column: string, box: SecretBox): Promise<void> {
  const values = await rawValues(database, table, column);
  assert.ok(values.length > 0, `${table}.${column} has rows`);
  for (const value of values) {
    if (value === null) continue;
    assert.ok(value.startsWith(box.currentPrefix), `${table}.${column} sealed with the current key: ${value}`);
    assert.ok(!value.includes(SECRET) && !value.includes('example.net'), `${table}.${column} holds no plaintext`);
  }
}

describe('secrets at rest', () => {
  const oldKey = randomBytes(32);
  let database: CiTestDatabase;
  let box: SecretBox;
  let stores: SqlStores;

  before(async () => {
    database = await openCiTestDatabase();
    box = new SecretBox([oldKey]);
    stores = createSqlStores(database.opened.db, database.opened.writes, box);
  });
  after(async () => database.close());

  it('seals every secret column on write and opens it on read', async () => {
    const group = await createGroup(stores, `sealed-${randomBytes(3).toString('hex')}`);
    const project = await createProject(stores, group, 'sealed');
    const variable = { key: 'TOKEN', value: SECRET, variable_type: 'env_var' as const, protected: false, masked: true, environment_scope: '*', raw: false, description: null, hidden: false };
    await stores.projectVariables.create(project.id, variable, NOW);
    await stores.groupVariables.create(group.id, variable, NOW);
    assert.equal((await stores.projectVariables.find(project.id, 'TOKEN'))?.value, SECRET);
    assert.equal((await stores.projectVariables.update(project.id, 'TOKEN', '*', { value: `${SECRET}-2` }, NOW))?.value, `${SECRET}-2`);
    assert.equal((await stores.groupVariables.list(group.id))[0]?.value, SECRET);
    await stores.instanceVariables.create(INSTANCE_VARIABLES_OWNER, { ...variable, raw: true }, NOW);
    assert.deepEqual((await stores.instanceVariables.update(INSTANCE_VARIABLES_OWNER, 'TOKEN', '*', { value: `${SECRET}-i` }, NOW))?.value, `${SECRET}-i`);

    const schedule = await stores.schedules.create({ project_id: project.id, description: 's', ref: 'main', cron: '0 1 * * *', cron_timezone: 'UTC', next_run_at: null, active: true, owner_id: null, created_at: NOW, updated_at: NOW });
    await stores.schedules.createVariable(schedule.id, { key: 'S', value: SECRET, variable_type: 'env_var' }, NOW);
    assert.equal((await stores.schedules.updateVariable(schedule.id, 'S', { value: `${SECRET}-3` }, NOW))?.value, `${SECRET}-3`);
    assert.equal((await stores.schedules.listVariables(schedule.id))[0]?.value, `${SECRET}-3`);

    const pipeline = await createPipeline(stores, project);
    await stores.pipelineVariables.add(pipeline.id, [{ key: 'P', value: SECRET, variable_type: 'env_var' }]);
    assert.deepEqual((await stores.pipelineVariables.list(pipeline.id)).map((row) => row.value), [SECRET]);

    const [job] = await stores.jobs.insertMany([buildJob(pipeline, 'dotenv')]);
    // The values an environment's URL names: a masked project variable's among them.
    const named = [{ key: 'TOKEN', value: SECRET, settings: true as const }, { key: 'CI_JOB_ID', value: '7' }];
    const [deploy] = await stores.jobs.insertMany([buildJob(pipeline, 'deploy', { environment_variables: named })]);
    assert.deepEqual(deploy?.environment_variables, named);
    assert.deepEqual((await stores.jobs.findById(deploy!.id))?.environment_variables, named);
    assert.deepEqual((await stores.jobs.findByIds([deploy!.id]))[0]?.environment_variables, named);
    assert.equal((await stores.jobs.findById(job!.id))?.environment_variables, null);
    const artifact = { job_id: job!.id, project_id: project.id, file_type: 'dotenv' as const, file_format: 'gzip' as const, file_name: '.env.gz', size: 1, sha256: 'a'.repeat(64), path: 'x', expire_at: null, created_at: NOW };
    await stores.jobArtifacts.save(artifact, [], [{ key: 'D', value: SECRET }]);
    assert.deepEqual((await stores.jobArtifacts.dotenvVariablesForJobs([job!.id])).map((row) => row.value), [SECRET]);

    const hook = await stores.hooks.create({ kind: 'project', id: project.id }, hookSettings('https://user:pw@example.net/hook', SECRET), NOW);
    assert.equal(hook.token, SECRET);
    assert.equal((await stores.hooks.findById(hook.id))?.url, 'https://user:pw@example.net/hook');
    const untokened = await stores.hooks.create({ kind: 'system' }, hookSettings('https://example.net/system', null), NOW);
    assert.equal((await stores.hooks.findById(untokened.id))?.token, null);

    await stores.integrations.save(project.id, 'slack', { active: true, events: integrationEvents, properties: { webhook: 'https://example.net/slack', password: SECRET } }, NOW);
    assert.deepEqual((await stores.integrations.find(project.id, 'slack'))?.properties, { webhook: 'https://example.net/slack', password: SECRET });

    assert.equal(await stores.ciSigningKey.create(SECRET, NOW), SECRET);
    assert.equal(await stores.ciSigningKey.create(`${SECRET}-second`, NOW), SECRET, 'the first key written stays');

    for (const [table, column] of [
      ['ci_signing_key', 'private_key'], ['ci_variables', 'value'], ['ci_group_variables', 'value'], ['ci_instance_variables', 'value'], ['ci_pipeline_schedule_variables', 'value'], ['ci_pipeline_variables', 'value'],
      ['ci_job_variables', 'value'], ['ci_jobs', 'environment_variables'], ['web_hooks', 'url'], ['web_hooks', 'token'], ['integrations', 'properties'],
    ] as const) {
      await assertNoPlaintext(database, table, column, box);
    }
    assert.ok((await rawValues(database, 'web_hooks', 'token')).includes(null), 'no token stays none');
  });

  it('seals rows stored in clear at start-up, once, and reads them the same before and after', async () => {
    const group = await createGroup(stores, `legacy-${randomBytes(3).toString('hex')}`);
    const project = await createProject(stores, group, 'legacy');
    const db = database.opened.db;
    await db.insertInto('ci_variables').values({ project_id: project.id, key: 'OLD', value: SECRET, variable_type: 'env_var', protected: 0, masked: 1, environment_scope: '*', created_at: NOW, updated_at: NOW }).execute();
    await sql`UPDATE web_hooks SET token = ${'legacy-token'}, url = ${'https://example.net/legacy'} WHERE kind = 'system'`.execute(db);
    const pipeline = await createPipeline(stores, project);
    const [job] = await stores.jobs.insertMany([buildJob(pipeline, 'legacy-deploy')]);
    const named = [{ key: 'OLD', value: SECRET, settings: true as const }];
    await sql`UPDATE ci_jobs SET environment_variables = ${JSON.stringify(named)} WHERE id = ${job!.id}`.execute(db);
    assert.deepEqual((await stores.jobs.findById(job!.id))?.environment_variables, named, 'a job row in clear reads as it is');
    assert.equal((await stores.projectVariables.find(project.id, 'OLD'))?.value, SECRET, 'a clear row reads as it is');

    assert.ok((await sealStoredSecrets(db, box)) >= 4, 'the variable, the url, the token and the job\'s environment variables');
    await assertNoPlaintext(database, 'ci_variables', 'value', box);
    await assertNoPlaintext(database, 'web_hooks', 'token', box);
    await assertNoPlaintext(database, 'ci_jobs', 'environment_variables', box);
    assert.deepEqual((await stores.jobs.findById(job!.id))?.environment_variables, named);
    assert.equal((await stores.projectVariables.find(project.id, 'OLD'))?.value, SECRET);
    const system = (await stores.hooks.listSystem(null))[0];
    assert.deepEqual([system?.url, system?.token], ['https://example.net/legacy', 'legacy-token']);
    assert.equal(await sealStoredSecrets(db, box), 0, 'a second pass has nothing to do');
  });

  it("reads the jobs that have environment variables through their index, not the whole jobs table, at each start", async () => {
    const db = database.opened.db;
    const jobs = SEALED_COLUMNS.find(({ table }) => table === 'ci_jobs')!;
    const query = unsealedBatch({ ...jobs, column: jobs.columns[0]!, batch: 500 }, box.currentPrefix, [0]);
    const plan = await inTransaction(db, async (trx) => {
      if (dialectOf(trx) === 'sqlite') {
        const { rows } = await sql<{ detail: string }>`EXPLAIN QUERY PLAN ${query}`.execute(trx);
        return rows.map((row) => row.detail).join('\n');
      }
      // A test database's tables are small enough for a sequential scan to win: ask whether the index can serve.
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      const { rows } = await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${query}`.execute(trx);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    assert.match(plan, /ci_jobs_environment_variables/, plan);
  });

  it('refuses another key, and rotates to a new key listed before the old one', async () => {
    const db = database.opened.db;
    await checkSecretKey(db, box, NOW);
    await checkSecretKey(db, box, NOW);
    const other = SecretBox.ephemeral();
    const refused = await checkSecretKey(db, other, NOW).then(() => assert.fail('accepted another key'), (error: unknown) => error);
    assert.ok(isGantryError(refused) && refused.code === 'GANTRY_E_SECRET_KEY_MISMATCH', String(refused));
    assert.match(refused.message, new RegExp(`sealed with secret key ${box.currentKeyId}`));
    assert.doesNotMatch(refused.message, /\n/);

    const group = await createGroup(stores, `rotate-${randomBytes(3).toString('hex')}`);
    await stores.groupVariables.create(group.id, { key: 'R', value: SECRET, variable_type: 'file', protected: true, masked: false, environment_scope: '*', raw: false, description: null, hidden: false }, NOW);
    const ring = new SecretBox([randomBytes(32), oldKey]);
    await checkSecretKey(db, ring, NOW);
    const oldAlone = await checkSecretKey(db, box, NOW).then(() => assert.fail('the old key alone is still accepted'), (error: unknown) => error);
    assert.ok(isGantryError(oldAlone) && oldAlone.code === 'GANTRY_E_SECRET_KEY_MISMATCH', String(oldAlone));

    const rotatedStores = createSqlStores(db, database.opened.writes, ring);
    assert.equal((await rotatedStores.groupVariables.find(group.id, 'R'))?.value, SECRET, 'the ring opens what the old key sealed');
    // One row a batch: every table's walk goes past its first batch (ci_job_variables has a two-column key).
    assert.ok((await sealStoredSecrets(db, ring, 1)) >= 8, 'the variables, hooks and integration of the tests above');
    assert.equal(await sealStoredSecrets(db, ring, 1), 0);
    for (const [table, column] of [['ci_variables', 'value'], ['ci_group_variables', 'value'], ['ci_jobs', 'environment_variables'], ['web_hooks', 'url'], ['integrations', 'properties']] as const) {
      await assertNoPlaintext(database, table, column, ring);
    }
    assert.equal((await rotatedStores.groupVariables.find(group.id, 'R'))?.value, SECRET);
    const foreign = SecretBox.ephemeral();
    await sql`UPDATE ci_variables SET value = ${foreign.seal(SECRET)} WHERE key = 'OLD'`.execute(db);
    const stuck = await sealStoredSecrets(db, ring).then(() => assert.fail('sealed a value of an unknown key'), (error: unknown) => error);
    assert.ok(isGantryError(stuck) && stuck.code === 'GANTRY_E_SECRET_UNREADABLE', String(stuck));
    assert.match(stuck.message, new RegExp(`^ci_variables\\.value of the row id \\d+: a stored secret was sealed with secret key ${foreign.currentKeyId}`));
    const unreadable = await stores.groupVariables.find(group.id, 'R').then(() => assert.fail('the old key opened a value of the new one'), (error: unknown) => error);
    assert.ok(isGantryError(unreadable) && unreadable.code === 'GANTRY_E_SECRET_UNREADABLE', String(unreadable));
  });
});

describe('a sealed value', () => {
  it('differs on each seal, opens to its plaintext, and refuses a changed byte', () => {
    const box = SecretBox.ephemeral();
    const first = box.seal(SECRET);
    assert.notEqual(first, box.seal(SECRET), 'a random IV per value');
    assert.ok(first.startsWith(`${SEALED_PREFIX}${box.currentKeyId}:`));
    assert.equal(box.open(first), SECRET);
    assert.equal(box.open(''), '', 'a clear value reads as it is');
    assert.equal(box.open(box.seal('')), '');
    const body = first.slice(box.currentPrefix.length);
    const altered = `${box.currentPrefix}${body.slice(0, -2)}${body.endsWith('AA') ? 'BB' : 'AA'}`;
    assert.throws(() => box.open(altered), (error: unknown) => isGantryError(error) && error.code === 'GANTRY_E_SECRET_UNREADABLE');
  });
});
