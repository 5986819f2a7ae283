import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { kyselyStatement, rowsAsObjects } from '../../../src/storage/sql/raw-rows.ts';

describe('rows built from raw arrays', () => {
  const database = new BetterSqlite3(':memory:');
  database.exec(`create table items (id integer primary key, name text, size real, data blob, gone integer);
    insert into items values (1, 'a', 1.5, x'00ff', null), (2, 'b', null, null, 7)`);
  const compare = (sql: string, parameters: unknown[]) => {
    const expected = database.prepare(sql).all(parameters);
    const actual = rowsAsObjects(database.prepare(sql))(parameters);
    assert.deepStrictEqual(actual, expected);
    assert.deepEqual(actual.map((row) => Object.keys(row as object)), expected.map((row) => Object.keys(row as object)));
  };

  it('gives the objects better-sqlite3 gives, keys in the same order', () => {
    compare('select * from items order by id', []);
    compare('select * from items where id = ?', [2]);
    compare('select * from items where id = ?', [3]);
    compare('select name, id, name as "id" from items', []);
    compare('select id as "weird ""name""", id as "__proto__x" from items', []);
  });

  it('follows a statement whose columns change (a migration adds one)', () => {
    const read = rowsAsObjects(database.prepare('select * from items where id = ?'));
    assert.deepEqual(Object.keys(read([1])[0] as object), ['id', 'name', 'size', 'data', 'gone']);
    database.exec('alter table items add column extra text default \'x\'');
    assert.deepEqual(read([1])[0], database.prepare('select * from items where id = ?').get(1));
  });

  it('leaves a column named __proto__ to better-sqlite3', () => {
    const [row] = rowsAsObjects(database.prepare('select 1 as "__proto__"'))([]) as Array<Record<string, unknown>>;
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
  });

  it('gives kysely the rows better-sqlite3 gives, from all and iterate, and runs writes with or without returning', () => {
    const sql = 'select * from items order by id';
    const expected = database.prepare(sql).all();
    const statement = kyselyStatement(database.prepare(sql));
    assert.equal(statement.reader, true);
    assert.deepStrictEqual(statement.all([]), expected);
    assert.deepStrictEqual([...statement.iterate([])], expected);
    const inserted = kyselyStatement(database.prepare("insert into items (id, name) values (?, ?) returning id, name"));
    assert.deepStrictEqual(inserted.all([10, 'ten']), [{ id: 10, name: 'ten' }]);
    const plainWrite = kyselyStatement(database.prepare('delete from items where id = ?'));
    assert.equal(plainWrite.reader, false);
    assert.equal(plainWrite.run([10]).changes, 1);
  });
});
