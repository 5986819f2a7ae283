import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import { openDatabase, type Db } from '../../../src/storage/sql/database.ts';
import { migrateToLatest, migrateUpTo, migrationNames } from '../../../src/storage/sql/migrate.ts';
import { buildSqliteSchemaImage } from '../../../src/storage/sql/schema-image.ts';

async function schemaOf(db: Db): Promise<string[]> {
  const rows = await sql<{ type: string; name: string; sql: string | null }>`select type, name, sql from sqlite_master order by type, name`.execute(db);
  return rows.rows.map((row) => `${row.type} ${row.name}: ${row.sql ?? ''}`);
}

async function appliedMigrations(db: Db): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.rows.map((row) => row.name);
}

describe('SQLite schema image (an empty database migrated, serialized)', () => {
  it('opens as a migrated in-memory database: the same schema as migrating, nothing left to migrate', async () => {
    const image = await buildSqliteSchemaImage();
    const migrated = openDatabase(':memory:');
    const fromImage = openDatabase(':memory:', undefined, undefined, image);
    try {
      await migrateToLatest(migrated.db, 'sqlite');
      const expected = await schemaOf(migrated.db);
      assert.ok(expected.some((line) => line.startsWith('table projects:')), 'the migrated schema has the projects table');
      assert.deepEqual(await schemaOf(fromImage.db), expected);
      assert.deepEqual(await appliedMigrations(fromImage.db), [...migrationNames()].sort());
      await migrateToLatest(fromImage.db, 'sqlite');
      assert.deepEqual(await schemaOf(fromImage.db), expected);
      assert.deepEqual(await appliedMigrations(fromImage.db), [...migrationNames()].sort());
    } finally {
      await migrated.close();
      await fromImage.close();
    }
  });

  it('finds nothing to migrate in one statement when every migration is recorded, and still migrates a database that lacks one', async () => {
    const image = await buildSqliteSchemaImage();
    const statements: string[] = [];
    const fromImage = openDatabase(':memory:', undefined, (text) => statements.push(text), image);
    const partly = openDatabase(':memory:');
    try {
      await migrateToLatest(fromImage.db, 'sqlite');
      assert.deepEqual(statements, ['select name from kysely_migration']);
      const names = migrationNames();
      await migrateUpTo(partly.db, 'sqlite', names[names.length - 2]!);
      assert.equal((await appliedMigrations(partly.db)).length, names.length - 1);
      await migrateToLatest(partly.db, 'sqlite');
      assert.deepEqual(await appliedMigrations(partly.db), [...names].sort());
    } finally {
      await fromImage.close();
      await partly.close();
    }
  });

  it('gives each database its own copy, writable past the image size, foreign keys on', async () => {
    const image = await buildSqliteSchemaImage();
    const first = openDatabase(':memory:', undefined, undefined, image);
    const second = openDatabase(':memory:', undefined, undefined, image);
    try {
      const now = new Date().toISOString();
      // About 4 MB of rows: well past the image's own pages, so the copy has to grow.
      const name = 'x'.repeat(2000);
      for (let index = 0; index < 2000; index += 1) {
        await sql`insert into users (username, name, email, projects_limit, created_at, updated_at) values (${`user-${index}`}, ${name}, ${`u${index}@example.com`}, 10, ${now}, ${now})`.execute(first.db);
      }
      const counted = async (db: Db): Promise<number> => Number((await sql<{ n: number }>`select count(*) as n from users`.execute(db)).rows[0]!.n);
      assert.equal(await counted(first.db), 2000);
      assert.ok(first.serialize!().length > image.length + 3_000_000, 'the database grew past the image');
      assert.equal(await counted(second.db), 0);
      const foreignKeys = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(first.db);
      assert.equal(foreignKeys.rows[0]!.foreign_keys, 1);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('refuses an image for anything but an in-memory database', async () => {
    const image = await buildSqliteSchemaImage();
    assert.throws(() => openDatabase('/tmp/not-made.sqlite3', undefined, undefined, image), /in-memory database only/);
  });
});
