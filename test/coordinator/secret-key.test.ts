import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import { createCoordinator, type Coordinator } from '../../src/coordinator/app.ts';
import { isGantryError } from '../../src/shared/errors.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { openDatabase } from '../../src/storage/sql/database.ts';
import { testDatabase } from '../helpers/database.ts';

/**
 * The coordinator's secret key: written once into the data directory, checked against the
 * database at each start (another key is refused with one line), rotated by listing the new
 * key before the old one; secrets stored in clear before are sealed at start-up.
 */
const TOKEN = 'secret-key-root-token-0123456789';
const SECRET = 'kept-out-of-the-database-in-clear';

const temporary: string[] = [];
const directory = (label: string) => {
  const made = mkdtempSync(path.join(tmpdir(), `gantry-secret-key-${label}-`));
  temporary.push(made);
  return made;
};
after(() => {
  for (const made of temporary) rmSync(made, { recursive: true, force: true });
});

async function api(coordinator: Coordinator, method: 'GET' | 'POST', url: string, body?: object) {
  const response = await coordinator.app.inject({ method, url: `/api/v4${url}`, headers: { 'private-token': TOKEN }, ...(body ? { payload: body } : {}) });
  return { status: response.statusCode, json: response.json() as Record<string, unknown> };
}

function refusal(error: unknown): string {
  assert.ok(isGantryError(error), `a GantryError, not ${String(error)}`);
  assert.equal(error.code, 'GANTRY_E_SECRET_KEY_MISMATCH');
  assert.doesNotMatch(error.message, /\n/, 'one line');
  return error.message;
}

async function rawVariableValues(databaseUrl: string): Promise<string[]> {
  const opened = openDatabase(databaseUrl);
  try {
    const { rows } = await sql<{ value: string }>`SELECT value FROM ci_variables ORDER BY id`.execute(opened.db);
    return rows.map((row) => row.value);
  } finally {
    await opened.close();
  }
}

describe('the coordinator secret key', () => {
  it('is written once, mode 0600; another key is refused; a new key listed first rotates; clear rows are sealed at start-up', async () => {
    const database = await testDatabase();
    const databaseUrl = database.url === ':memory:' ? path.join(directory('sqlite'), 'gantry.sqlite3') : database.url;
    const dataDir = directory('data');
    try {
      const first = await createCoordinator({ dataDir, databaseUrl, rootToken: TOKEN });
      const keyFile = path.join(dataDir, 'secret.key');
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      const fileKey = readFileSync(keyFile, 'utf8').trim();
      assert.equal(Buffer.from(fileKey, 'base64').length, 32);
      const project = await api(first, 'POST', '/projects', { name: 'vault' });
      assert.equal(project.status, 201);
      const projectId = project.json.id as number;
      assert.equal((await api(first, 'POST', `/projects/${projectId}/variables`, { key: 'SEALED', value: SECRET, masked: true })).status, 201);
      await first.close();
      const [sealed] = await rawVariableValues(databaseUrl);
      assert.match(sealed ?? '', /^gantry:v1:[0-9a-f]{8}:/);
      assert.ok(!sealed?.includes(SECRET));

      const otherKey = randomBytes(32).toString('hex');
      const message = await createCoordinator({ dataDir, databaseUrl, rootToken: TOKEN, secretKeys: [otherKey] }).then(() => assert.fail('started with another key'), refusal);
      assert.match(message, /sealed with secret key [0-9a-f]{8}, and this coordinator has [0-9a-f]{8}: start it with the key the other coordinators use/);

      // A row written in clear (before encryption) beside the sealed one.
      const opened = openDatabase(databaseUrl);
      await sql`INSERT INTO ci_variables (project_id, key, value, variable_type, protected, masked, environment_scope, created_at, updated_at)
        VALUES (${projectId}, ${'LEGACY'}, ${`${SECRET}-legacy`}, ${'env_var'}, ${0}, ${0}, ${'*'}, ${'2026-01-01T00:00:00Z'}, ${'2026-01-01T00:00:00Z'})`.execute(opened.db);
      await opened.close();

      const rotated = await createCoordinator({ dataDir, databaseUrl, rootToken: TOKEN, secretKeys: [otherKey, fileKey] });
      const variables = await rotated.app.inject({ method: 'GET', url: `/api/v4/projects/${projectId}/variables`, headers: { 'private-token': TOKEN } });
      assert.deepEqual((variables.json() as Array<{ key: string; value: string }>).map(({ key, value }) => [key, value]), [['SEALED', SECRET], ['LEGACY', `${SECRET}-legacy`]]);
      await rotated.close();
      const raw = await rawVariableValues(databaseUrl);
      const sealedPrefixes = new Set(raw.map((value) => value.slice(0, 19)));
      assert.equal(sealedPrefixes.size, 1, `all sealed with the new key: ${raw.join(' ')}`);
      assert.ok(raw.every((value) => value.startsWith('gantry:v1:') && !value.includes(SECRET)));

      const oldKeyOnly = await createCoordinator({ dataDir, databaseUrl, rootToken: TOKEN }).then(() => assert.fail('started with the old key'), refusal);
      assert.match(oldKeyOnly, /secret\.key/);
    } finally {
      await database.drop();
    }
  });

  it('is shared by coordinators started together on one PostgreSQL database and data directory', { skip: process.env.GANTRY_TEST_DATABASE_URL === undefined && 'needs PostgreSQL: bash scripts/with-postgres.sh' }, async () => {
    const database = await testDatabase({ fresh: true });
    const dataDir = directory('shared');
    try {
      const [first, second] = await Promise.all([0, 1].map(() => createCoordinator({ dataDir, databaseUrl: database.url, rootToken: TOKEN })));
      try {
        const project = await api(first!, 'POST', '/projects', { name: 'shared' });
        assert.equal((await api(first!, 'POST', `/projects/${project.json.id as number}/variables`, { key: 'SHARED', value: SECRET })).status, 201);
        const read = await api(second!, 'GET', `/projects/${project.json.id as number}/variables/SHARED`);
        assert.deepEqual([read.status, read.json.value], [200, SECRET]);
      } finally {
        await Promise.all([first!.close(), second!.close()]);
      }
      assert.equal(readFileSync(path.join(dataDir, 'secret.key'), 'utf8').trim().split('\n').length, 1, 'one key written');
    } finally {
      await database.drop();
    }
  });

  it('refuses a configured key that is not 32 bytes', async () => {
    const refused = await createCoordinator({ dataDir: directory('bad-key'), rootToken: TOKEN, secretKeys: ['too-short'] }).then(() => assert.fail('started'), (error: unknown) => error);
    assert.ok(isGantryError(refused) && refused.code === 'GANTRY_E_SECRET_KEY_INVALID', String(refused));
    assert.match(refused.message, /^the configured secret keys \(secret_keys, GANTRY_SECRET_KEYS\): a secret key must be 64 hexadecimal digits or the base64 of 32 bytes/);
  });

  it('warns when the key file may be read by others, and names the file when a line of it is no key', async () => {
    const dataDir = directory('loose');
    await (await createCoordinator({ dataDir, rootToken: TOKEN })).close();
    const keyFile = path.join(dataDir, 'secret.key');
    chmodSync(keyFile, 0o644);
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = createLogger({ level: 'warn', destination: { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) } });
    await (await createCoordinator({ dataDir, rootToken: TOKEN, logger })).close();
    assert.ok(lines.some((line) => line.level === 40 && /may be read by others than its owner: chmod 600 it/.test(line.msg)), JSON.stringify(lines));

    chmodSync(keyFile, 0o600);
    writeFileSync(keyFile, 'not a key\n');
    const refused = await createCoordinator({ dataDir, rootToken: TOKEN }).then(() => assert.fail('started'), (error: unknown) => error);
    assert.ok(isGantryError(refused) && refused.code === 'GANTRY_E_SECRET_KEY_INVALID', String(refused));
    assert.ok(refused.message.startsWith(`${keyFile}: a secret key must be`), refused.message);
  });
});
