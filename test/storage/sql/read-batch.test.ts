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
 * Direct reads close together share one read transaction (storage/sql/read-batch.ts); these
 * check that sharing never hides a write: not one made through another handle of this
 * process, nor one committed by another connection before a later callback reads.
 */
describe('SQLite reads sharing a transaction', () => {
  let directory: string;
  let file: string;
  let opened: OpenedDatabase;
  let valueOf: (id: number) => Promise<string | undefined>;
  /** Another connection to the file that the process-wide hooks do not know of, as another process's would be. */
  let outsider: BetterSqlite3.Database;

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'gantry-read-batch-'));
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

  const nextCallback = () => new Promise((resolve) => setImmediate(resolve));
  const setValue = (value: string) => outsider.prepare('update items set value = ? where id = 1').run(value);

  it('reads of one callback see one snapshot', async () => {
    setValue('before');
    await nextCallback();
    assert.equal(await valueOf(1), 'before');
    setValue('during');
    assert.equal(await valueOf(1), 'before', 'the second read of the same callback shares the first one’s transaction');
    await nextCallback();
    assert.equal(await valueOf(1), 'during', 'a later callback sees the commit');
  });

  it('a commit by another connection before a callback starts is seen by its reads', async () => {
    await valueOf(1);
    setValue('from outside');
    await nextCallback();
    assert.equal(await valueOf(1), 'from outside');
    // Even when the batch was opened by the callback just before (promise and tick queues drained).
    await new Promise<void>((resolve) => {
      setImmediate(() => {
        void valueOf(1);
        setValue('again');
      });
      setImmediate(resolve);
    });
    assert.equal(await valueOf(1), 'again');
  });

  it('the first request of a poll ends a batch opened before it', async () => {
    setValue('unchanged');
    await nextCallback();
    assert.equal(await valueOf(1), 'unchanged');
    setValue('before the request');
    opened.requestArrived(true);
    assert.equal(await valueOf(1), 'before the request');
  });

  it('requests of one poll share a snapshot until its check phase; the next requests see what was committed meanwhile', async () => {
    setValue('first');
    await nextCallback();
    opened.requestArrived(true);
    assert.equal(await valueOf(1), 'first');
    setValue('second');
    opened.requestArrived(true);
    await Promise.resolve();
    assert.equal(await valueOf(1), 'first', 'a request of the same poll joins the open batch');
    await nextCallback();
    opened.requestArrived(true);
    assert.equal(await valueOf(1), 'second');
    setValue('injected');
    opened.requestArrived(false);
    assert.equal(await valueOf(1), 'injected', 'a request not read from a socket (injected) shares nothing');
    await nextCallback();
    assert.equal(await valueOf(1), 'injected', 'outside requests, reads go back to per-callback batches');
    setValue('third');
    await nextCallback();
    assert.equal(await valueOf(1), 'third');
  });

  it('a write through another handle of this process is seen by the next read, in the same callback', async () => {
    const second = openDatabase(file);
    try {
      setValue('unchanged');
      await nextCallback();
      assert.equal(await valueOf(1), 'unchanged');
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

  it('a write and a transaction through the same handle end its shared reads first', async () => {
    setValue('unchanged');
    await nextCallback();
    assert.equal(await valueOf(1), 'unchanged');
    await sql`update items set value = ${'own write'} where id = 1`.execute(opened.db);
    assert.equal(await valueOf(1), 'own write');
    const during = await opened.db.transaction().execute(async (transaction) => {
      await sql`update items set value = ${'own transaction'} where id = 1`.execute(transaction);
      // A direct read on the outer handle queues behind the transaction instead of joining it.
      const queued = valueOf(1);
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { queued };
    });
    assert.equal(await during.queued, 'own transaction');
    assert.equal(await valueOf(1), 'own transaction');
  });

  it('the external stamp moves when another connection commits, and not otherwise', async () => {
    await nextCallback();
    const stamp = opened.externalStamp();
    await nextCallback();
    assert.equal(opened.externalStamp(), stamp);
    await sql`update items set value = ${'own write'} where id = 1`.execute(opened.db);
    await nextCallback();
    assert.equal(opened.externalStamp(), stamp, 'a write through this handle is the stores’ to report');
    setValue('stamped');
    await nextCallback();
    assert.notEqual(opened.externalStamp(), stamp);
  });
});
