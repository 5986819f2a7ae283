import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from '#deps/kysely';
import { ReadCache, type ReadDependencies } from '../../src/coordinator/services/access/read-cache.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeUser, type TestUser } from './groups-fixtures.ts';

describe('ReadCache', () => {
  const onProjects = (depend: (dependencies: ReadDependencies) => void) => depend({ tables: ['projects'] });

  it('serves a kept value only while the external stamp is unchanged', async () => {
    let stamp = 'a';
    let computed = 0;
    const cache = new ReadCache(() => stamp);
    const read = () =>
      cache.get('key', async (depend) => {
        onProjects(depend);
        return `value ${++computed}`;
      });
    assert.equal(await read(), 'value 1');
    assert.equal(await read(), 'value 1');
    stamp = 'b';
    assert.equal(await read(), 'value 2');
    assert.equal(await read(), 'value 2');
  });

  it('keeps no value that declared no dependencies (no write could drop it)', async () => {
    let computed = 0;
    const cache = new ReadCache(() => 'same');
    await cache.get('key', async () => ++computed);
    assert.equal(await cache.get('key', async () => ++computed), 2);
  });

  it('does not keep a value when the stamp moved while it was computed', async () => {
    let stamp = 1;
    let computed = 0;
    const cache = new ReadCache(() => String(stamp));
    const first = await cache.get('key', async (depend) => {
      onProjects(depend);
      stamp += 1;
      return ++computed;
    });
    assert.equal(first, 1);
    assert.equal(await cache.get('key', async () => ++computed), 2);
  });

  it('keeps nothing without a stamp', async () => {
    let computed = 0;
    const cache = new ReadCache(() => null);
    const read = () =>
      cache.get('key', async (depend) => {
        onProjects(depend);
        return ++computed;
      });
    await read();
    await read();
    assert.equal(computed, 2);
  });

  it('peeks at a kept value without computing, while it is valid', async () => {
    let stamp = 'a';
    const cache = new ReadCache(() => stamp);
    assert.equal(cache.peek('key'), undefined);
    await cache.get('key', async (depend) => {
      onProjects(depend);
      return 'value';
    });
    assert.deepEqual(cache.peek('key'), { value: 'value' });
    await cache.get('nothing', async (depend) => {
      onProjects(depend);
      return null;
    });
    assert.deepEqual(cache.peek('nothing'), { value: null }, 'a kept null is a value, not a miss');
    stamp = 'b';
    assert.equal(cache.peek('key'), undefined);
    assert.equal(new ReadCache(() => null).peek('key'), undefined);
  });

  it('drops the oldest entry beyond its capacity', async () => {
    let computed = 0;
    const cache = new ReadCache(() => 'same', undefined, 2);
    const read = (key: string) =>
      cache.get(key, async (depend) => {
        onProjects(depend);
        return ++computed;
      });
    for (const key of ['a', 'b', 'c']) await read(key);
    assert.equal(await read('b'), 2);
    assert.equal(await read('a'), 4);
  });
});

describe('cached reads never go stale', () => {
  const onPostgres = Boolean(process.env.GANTRY_TEST_DATABASE_URL);
  let gantry: TestCoordinator;
  let bob: TestUser;
  let projectId: number;
  // A file (not :memory:) on SQLite, so that a second connection can write to it.
  const sqliteFile = path.join(tmpdir(), `gantry-cache-${process.pid}-${Date.now()}.sqlite3`);

  before(async () => {
    gantry = await startTestCoordinator(onPostgres ? {} : { extra: { databaseUrl: sqliteFile } });
    bob = await makeUser(gantry, 'bob');
    const created = await gantry.api('POST', '/projects', { body: { name: 'cached', description: 'first' } });
    projectId = created.json.id as number;
    await addMember(gantry, { type: 'project', id: projectId }, bob.id, 30);
  });
  after(async () => {
    await gantry.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqliteFile}${suffix}`, { force: true });
  });

  const description = async (token: string) => {
    const response = await gantry.api('GET', `/projects/${projectId}`, { token });
    return response.status === 200 ? response.json.description : response.status;
  };

  it('shows an edit made through the API right away', async () => {
    assert.equal(await description(bob.token), 'first');
    assert.equal(await description(bob.token), 'first');
    const edited = await gantry.api('PUT', `/projects/${projectId}`, { body: { description: 'second' } });
    assert.equal(edited.status, 200);
    assert.equal(await description(bob.token), 'second');
  });

  it('shows a change written by another connection to the same database', async () => {
    assert.equal(await description(bob.token), 'second');
    if (onPostgres) {
      // Every pooled query is its own connection's; nothing is cached on PostgreSQL.
      await sql`UPDATE projects SET description = ${'from elsewhere'} WHERE id = ${projectId}`.execute(gantry.coordinator.context.db);
    } else {
      const other = new BetterSqlite3(sqliteFile);
      other.prepare('UPDATE projects SET description = ? WHERE id = ?').run('from elsewhere', projectId);
      other.close();
    }
    assert.equal(await description(bob.token), 'from elsewhere');
  });

  it('forgets access and tokens as soon as they are taken away', async () => {
    assert.equal(typeof (await description(bob.token)), 'string');
    const removed = await gantry.api('DELETE', `/projects/${projectId}/members/${bob.id}`);
    assert.equal(removed.status, 204);
    assert.equal(await description(bob.token), 404);
    const blocked = await gantry.api('POST', `/users/${bob.id}/block`);
    assert.equal(blocked.status, 201);
    assert.equal(await description(bob.token), 401);
  });
});
