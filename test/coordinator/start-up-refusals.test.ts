import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { createCoordinator } from '../../src/coordinator/app.ts';
import { isGantryError } from '../../src/shared/errors.ts';
import { testDatabase } from '../helpers/database.ts';
import { freePort, startServe } from '../helpers/serve-process.ts';

/**
 * A coordinator refuses to start, with one line that says why, when its data directory is
 * not the one of its database, and when another process already serves from its SQLite file.
 */
const TOKEN = 'refusals-root-token-0123456789ab';
const BIN = path.resolve(import.meta.dirname, '../../bin/coordinator');

/** Runs `coordinator serve` to its end (it is expected to refuse); answers its exit code and stderr. */
function serveOnce(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(BIN, ['serve', '--host', '127.0.0.1', ...args], { env: { ...process.env, GANTRY_ROOT_TOKEN: TOKEN }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

function refusal(error: unknown, code: string): string {
  assert.ok(isGantryError(error), `a GantryError, not ${String(error)}`);
  assert.equal(error.code, code);
  assert.doesNotMatch(error.message, /\n/, 'one line');
  return error.message;
}

const temporary: string[] = [];
const directory = (label: string) => {
  const made = mkdtempSync(path.join(tmpdir(), `gantry-refusals-${label}-`));
  temporary.push(made);
  return made;
};
after(() => {
  for (const made of temporary) rmSync(made, { recursive: true, force: true });
});

describe('a data directory that is not the database one', () => {
  it('is refused: without a marker beside a database that has one, and with a marker naming another installation', async () => {
    const database = await testDatabase();
    // SQLite: a file outside the data directories, as a database URL may name one.
    const databaseUrl = database.url === ':memory:' ? path.join(directory('sqlite'), 'gantry.sqlite3') : database.url;
    try {
      const right = directory('right');
      const first = await createCoordinator({ dataDir: right, databaseUrl, rootToken: TOKEN });
      const marker = readFileSync(path.join(right, 'gantry-installation'), 'utf8').trim();
      assert.match(marker, /^[0-9a-f-]{36}$/);
      await first.close();

      const empty = directory('empty');
      const withoutMarker = await createCoordinator({ dataDir: empty, databaseUrl, rootToken: TOKEN }).then(() => assert.fail('started'), (error: unknown) => refusal(error, 'GANTRY_E_DATA_DIR_FOREIGN'));
      assert.match(withoutMarker, /has no marker .*gantry-installation/);
      assert.ok(withoutMarker.includes(`write ${marker} into`), withoutMarker);
      assert.doesNotMatch(withoutMarker, /postgres:\/\/[^/]*@/, 'no credentials in the line');

      const foreign = directory('foreign');
      writeFileSync(path.join(foreign, 'gantry-installation'), 'an-installation-of-another-database\n');
      const otherMarker = await createCoordinator({ dataDir: foreign, databaseUrl, rootToken: TOKEN }).then(() => assert.fail('started'), (error: unknown) => refusal(error, 'GANTRY_E_DATA_DIR_FOREIGN'));
      assert.match(otherMarker, /names installation an-installation-of-another-database, but .* is installation /);

      const again = await createCoordinator({ dataDir: right, databaseUrl, rootToken: TOKEN });
      await again.close();
    } finally {
      await database.drop();
    }
  });

  it('is refused when it names an installation and the database is a new one', async () => {
    const database = await testDatabase();
    const databaseUrl = database.url === ':memory:' ? path.join(directory('sqlite-new'), 'gantry.sqlite3') : database.url;
    try {
      const used = directory('used');
      writeFileSync(path.join(used, 'gantry-installation'), '0b5f6a1e-0000-4000-8000-000000000001\n');
      const message = await createCoordinator({ dataDir: used, databaseUrl, rootToken: TOKEN }).then(() => assert.fail('started'), (error: unknown) => refusal(error, 'GANTRY_E_DATA_DIR_FOREIGN'));
      assert.match(message, /belongs to another database: its marker .* names installation 0b5f6a1e-0000-4000-8000-000000000001, and .* is a new one/);
    } finally {
      await database.drop();
    }
  });

  it('makes `coordinator serve` exit with that one line', async () => {
    const databaseFile = path.join(directory('serve-sqlite'), 'gantry.sqlite3');
    const right = directory('serve-right');
    const first = await createCoordinator({ dataDir: right, databaseUrl: databaseFile, rootToken: TOKEN });
    await first.close();
    const { code, stderr } = await serveOnce(['--port', String(await freePort()), '--data-dir', directory('serve-wrong'), '--database-url', databaseFile]);
    assert.equal(code, 1);
    assert.match(stderr, /^coordinator: the data directory \S+ is not the one of the SQLite database \S+ \(installation [0-9a-f-]{36}\): it has no marker [^\n]+\n$/);
  });
});

describe('a second coordinator process on one SQLite file', () => {
  it('is refused with one line while the first runs, and starts once it is gone (even killed)', async () => {
    const dataDir = directory('sqlite-twice');
    const first = await startServe({ dataDir, port: await freePort(), token: TOKEN });
    try {
      const { code, stderr } = await serveOnce(['--port', String(await freePort()), '--data-dir', dataDir]);
      assert.equal(code, 1);
      assert.match(stderr, /^coordinator: another coordinator process is serving from the SQLite database \S+gantry\.sqlite3, and SQLite serves one: [^\n]+PostgreSQL[^\n]+\n$/);
      assert.equal((await fetch(`${first.baseUrl}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': TOKEN } })).status, 200, 'the first one serves on');
    } finally {
      await first.kill();
    }
    const second = await startServe({ dataDir, port: await freePort(), token: TOKEN });
    await second.stop();
  });

  it('is refused in one process too (two coordinators on one file)', async () => {
    const dataDir = directory('sqlite-in-process');
    const first = await createCoordinator({ dataDir, rootToken: TOKEN });
    try {
      const message = await createCoordinator({ dataDir, rootToken: TOKEN }).then(() => assert.fail('started'), (error: unknown) => refusal(error, 'GANTRY_E_DATABASE_IN_USE'));
      assert.match(message, /SQLite serves one/);
    } finally {
      await first.close();
    }
    const after = await createCoordinator({ dataDir, rootToken: TOKEN });
    await after.close();
  });
});
