import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '../../src/storage/sql/database.ts';
import { migrateToLatest, migrationNames } from '../../src/storage/sql/migrate.ts';

export interface TestDatabaseOptions {
  /** An empty database, not a copy of the migrated template: for tests of migrating itself. */
  fresh?: boolean;
}

/**
 * The database a test coordinator uses: SQLite in memory by default; with
 * GANTRY_TEST_DATABASE_URL=postgres://.../postgres a new PostgreSQL database per call, dropped
 * again by the returned cleanup. The new database is a copy of a template migrated once per
 * cluster (about a second of migrations saved per database), unless `fresh` asks for an empty one.
 */
export async function testDatabase(options: TestDatabaseOptions = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.GANTRY_TEST_DATABASE_URL;
  if (!adminUrl) return { url: ':memory:', drop: async () => {} };
  const name = `gantry_test_${randomBytes(6).toString('hex')}`;
  const template = options.fresh ? undefined : await migratedTemplate(adminUrl);
  // FILE_COPY copies the few files of a small database in a fraction of WAL_LOG's time.
  await adminQuery(adminUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''} STRATEGY FILE_COPY`);
  return {
    url: databaseUrl(adminUrl, name),
    async drop() {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

let template: Promise<string> | undefined;

/** The migrated template of this schema, built by the first test process that asks for it. */
function migratedTemplate(adminUrl: string): Promise<string> {
  template ??= buildTemplateOnce(adminUrl);
  return template;
}

const TEMPLATE_LOCK = 7_314_528_001;

async function buildTemplateOnce(adminUrl: string): Promise<string> {
  const schema = createHash('sha256').update(migrationNames().join('\n')).digest('hex').slice(0, 12);
  const name = `gantry_template_${schema}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // Test processes start two at a time: one builds, the others wait for it.
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    const existing = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (existing.rowCount === 0) {
      const building = `${name}_building`;
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${building}`);
      const opened = openDatabase(databaseUrl(adminUrl, building));
      try {
        await migrateToLatest(opened.db, opened.dialect);
      } finally {
        await opened.close();
      }
      // Published under its final name only once complete, so no test copies half a schema.
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    }
    return name;
  } finally {
    await admin.end();
  }
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
