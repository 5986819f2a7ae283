/**
 * A schema image: an empty SQLite database with every migration applied, serialized. A
 * `:memory:` database opened from it (openDatabase's `sqliteImage`) starts migrated, which
 * spares a short-lived coordinator (`runner exec`) running the migrations one by one; its
 * migration check then finds nothing to do.
 */
import { openDatabase } from './database.ts';
import { migrateToLatest } from './migrate.ts';

export async function buildSqliteSchemaImage(): Promise<Buffer> {
  const database = openDatabase(':memory:');
  try {
    await migrateToLatest(database.db, database.dialect);
    if (!database.serialize) throw new Error('this SQLite handle cannot be serialized');
    return database.serialize();
  } finally {
    await database.close();
  }
}
