import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from '#deps/kysely';
import { openDatabase, type OpenedDatabase } from '../../../src/storage/sql/database.ts';
import { preparedQuery } from '../../../src/storage/sql/prepared.ts';

/**
 * Compiled-once reads run on the SQLite connection directly, outside kysely's queue
 * (storage/sql/prepared.ts). These check that they never read stale or uncommitted data: each
 * sees every commit made before it, by any connection, and none runs inside another caller's
 * transaction; and that the external stamp the read cache relies on moves exactly when another
 * connection commits.
 */
describe('SQLite direct reads', () => {
  let directory: string;
  let file: string;
  let opened: OpenedDatabase;
  let valueOf: (id: number) => Promise<string | undefined>;
  /** Another connection to the file, as another process's would be. */
  let outsider: BetterSqlite3.Database;

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'gantry-direct-reads-'));
    file = join(directory, 'gantry.sqlite3');
    opened = openDatabase(file);
    await sql`create table items (id integer primary key, value text not null)`.execute(opened.db);
    await sql`insert into items (id, value) values (1, 'first')`.execute(opened.db);
    const read = preparedQuery(opened.db, (id: number) => sql<{ value: string }>`select value from items where id = ${id}`.compile(opened.db));
    valueOf = async (id) => (await read(id))[0]?.value;
    outsider = new BetterSqlite3(file);
    outsider.pragma('busy_timeout = 5000');
  });
  after(async () => {
    outsider.close();
    await opened.close();
    await rm(directory, { recursive: true, force: true });
  });

  const setValue = (value: string) => outsider.prepare('update items set value = ? where id = 1').run(value);

  it('each read sees what another connection committed just before it, in the same callback', async () => {
    setValue('before');
    assert.equal(await valueOf(1), 'before');
    setValue('during');
    assert.equal(await valueOf(1), 'during');
  });

  it('a write through another handle of this process is seen by the next read', async () => {
    const second = openDatabase(file);
    try {
      await sql`update items set value = ${'by the second handle'} where id = 1`.execute(second.db);
      assert.equal(await valueOf(1), 'by the second handle');
      await second.db.transaction().execute(async (transaction) => {
        await sql`update items set value = ${'in a transaction'} where id = 1`.execute(transaction);
      });
      assert.equal(await valueOf(1), 'in a transaction');
    } finally {
      await second.close();
    }
  });

  it('a read on the handle queues behind its open transaction instead of seeing its uncommitted writes', async () => {
    setValue('unchanged');
    let queued: Promise<string | undefined> | undefined;
    await assert.rejects(
      opened.db.transaction().execute(async (transaction) => {
        await sql`update items set value = ${'rolled back'} where id = 1`.execute(transaction);
        queued = valueOf(1);
        await new Promise((resolve) => setTimeout(resolve, 10));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal(await queued, 'unchanged');
  });

  it('the external stamp moves when another connection commits, and not otherwise', async () => {
    const stamp = opened.externalStamp();
    assert.equal(opened.externalStamp(), stamp);
    await sql`update items set value = ${'own write'} where id = 1`.execute(opened.db);
    assert.equal(opened.externalStamp(), stamp, 'a write through this handle is the stores’ to report');
    setValue('stamped');
    assert.notEqual(opened.externalStamp(), stamp, 'seen at once, without waiting for another callback');
  });
});
