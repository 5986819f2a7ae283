/** What tests of one migration share: a fresh database migrated up to the one before it, and the rows most data hangs on. */
import { after, before } from 'node:test';
import { sql } from '#deps/kysely';
import { openDatabase, type Db, type OpenedDatabase } from '../../src/storage/sql/database.ts';
import { migrateUpTo } from '../../src/storage/sql/migrate.ts';
import { testDatabase } from './database.ts';

/** In the calling suite: a fresh test database migrated up to `name` (dropped after the suite); call the answer for it. */
export function databaseMigratedUpTo(name: string): () => OpenedDatabase {
  let opened: OpenedDatabase | undefined;
  let drop: (() => Promise<void>) | undefined;
  before(async () => {
    const database = await testDatabase({ fresh: true });
    drop = database.drop;
    opened = openDatabase(database.url);
    await migrateUpTo(opened.db, opened.dialect, name);
  });
  after(async () => {
    await opened?.close();
    await drop?.();
  });
  return () => {
    if (!opened) throw new Error('the database opens before the suite runs');
    return opened;
  };
}

/** A user, a group and a private project of it, in raw SQL (the schema of the migration under test). */
export async function insertOwnedProject(db: Db, now: string): Promise<{ userId: number; namespaceId: number; projectId: number }> {
  const user = await sql<{ id: number }>`insert into users (username, name, email, projects_limit, created_at, updated_at) values ('owner', 'Owner', 'o@example.com', 10, ${now}, ${now}) returning id`.execute(db);
  const namespace = await sql<{ id: number }>`insert into namespaces (kind, name, path, full_path, full_name, visibility, created_at, updated_at) values ('group', 'G', 'g', 'g', 'G', 'private', ${now}, ${now}) returning id`.execute(db);
  const userId = user.rows[0]!.id;
  const namespaceId = namespace.rows[0]!.id;
  const project = await sql<{ id: number }>`insert into projects (namespace_id, creator_id, name, path, visibility, runners_token, created_at, updated_at, last_activity_at) values (${namespaceId}, ${userId}, 'P', 'p', 'private', 'rt-1', ${now}, ${now}, ${now}) returning id`.execute(db);
  return { userId, namespaceId, projectId: project.rows[0]!.id };
}
