import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import { openDatabase, type OpenedDatabase } from '../../../src/storage/sql/database.ts';

/** The SQLite handle's one statement cache: statements are prepared once per SQL text, and rows follow the schema. */
describe('SQLite statements', () => {
  let opened: OpenedDatabase;

  before(async () => {
    opened = openDatabase(':memory:');
    await sql`create table items (id integer primary key, name text not null, size integer)`.execute(opened.db);
    await sql`insert into items (id, name, size) values (1, 'first', 10)`.execute(opened.db);
  });
  after(() => opened.close());

  const readAll = async () => (await sql<Record<string, unknown>>`select * from items where id = ${1}`.execute(opened.db)).rows;

  it('answers rows under the columns’ new names after a rename (same SQL text, same column count)', async () => {
    assert.deepEqual(await readAll(), [{ id: 1, name: 'first', size: 10 }]);
    await sql`alter table items rename column name to title`.execute(opened.db);
    assert.deepEqual(await readAll(), [{ id: 1, title: 'first', size: 10 }]);
    await sql`alter table items rename column title to name`.execute(opened.db);
    assert.deepEqual(await readAll(), [{ id: 1, name: 'first', size: 10 }]);
  });
});
