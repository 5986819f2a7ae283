/** Migration 060: CI variables gain `description`; project and group variables `raw` and `hidden` too. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import { migrateToLatest } from '../../../src/storage/sql/migrate.ts';
import { SecretBox } from '../../../src/storage/secret-box.ts';
import { SqlGroupVariablesStore, SqlInstanceVariablesStore, SqlProjectVariablesStore } from '../../../src/storage/sql/stores/ci-variables.ts';
import { INSTANCE_VARIABLES_OWNER, type CiVariableRecord } from '../../../src/storage/types-ci-settings.ts';
import { databaseMigratedUpTo, insertOwnedProject } from '../../helpers/migration-database.ts';

describe('migration 060 (CI variable description, raw, hidden)', () => {
  const database = databaseMigratedUpTo('059-job-environment-variables-index');

  it('reads the variables kept before as GitLab defaults them (no description, not raw, not hidden), and keeps the new fields after', async () => {
    const { db, dialect } = database();
    const now = '2026-01-01T00:00:00.000Z';
    const box = SecretBox.ephemeral();
    const { namespaceId, projectId } = await insertOwnedProject(db, now);
    const sealed = box.seal('kept-value');
    await sql`insert into ci_variables (project_id, key, value, variable_type, protected, masked, environment_scope, created_at, updated_at) values (${projectId}, 'OLD', ${sealed}, 'env_var', 0, 0, '*', ${now}, ${now})`.execute(db);
    await sql`insert into ci_group_variables (group_id, key, value, variable_type, protected, masked, created_at, updated_at) values (${namespaceId}, 'OLD', ${sealed}, 'env_var', 0, 0, ${now}, ${now})`.execute(db);
    await sql`insert into ci_instance_variables (key, value, variable_type, protected, masked, raw, created_at, updated_at) values ('OLD', ${sealed}, 'env_var', 0, 0, 1, ${now}, ${now})`.execute(db);

    await migrateToLatest(db, dialect);

    const projects = new SqlProjectVariablesStore(db, box);
    const groups = new SqlGroupVariablesStore(db, box);
    const instance = new SqlInstanceVariablesStore(db, box);
    const defaults: CiVariableRecord = { key: 'OLD', value: 'kept-value', variable_type: 'env_var', protected: false, masked: false, environment_scope: '*', raw: false, description: null, hidden: false };
    assert.deepEqual(await projects.find(projectId, 'OLD'), defaults);
    assert.deepEqual(await groups.find(namespaceId, 'OLD'), defaults);
    assert.deepEqual(await instance.find(INSTANCE_VARIABLES_OWNER, 'OLD'), { ...defaults, raw: true });

    const hidden: CiVariableRecord = { ...defaults, key: 'NEW', masked: true, raw: true, description: 'rotated weekly', hidden: true };
    await projects.create(projectId, hidden, now);
    await groups.create(namespaceId, hidden, now);
    assert.deepEqual(await projects.find(projectId, 'NEW'), hidden);
    assert.deepEqual(await groups.find(namespaceId, 'NEW'), hidden);
    const changes = { value: 'next-value', raw: false, description: null };
    assert.deepEqual(await projects.update(projectId, 'NEW', '*', changes, now), { ...hidden, ...changes });
    assert.deepEqual(await groups.update(namespaceId, 'NEW', '*', changes, now), { ...hidden, ...changes });
    assert.deepEqual(await instance.update(INSTANCE_VARIABLES_OWNER, 'OLD', '*', { description: 'described' }, now), { ...defaults, raw: true, description: 'described' });
    const stored = await sql<{ value: string }>`select value from ci_variables where key = 'NEW'`.execute(db);
    assert.ok(stored.rows[0]!.value.startsWith('gantry:v1:'), 'a hidden value is sealed as any other');
  });
});
