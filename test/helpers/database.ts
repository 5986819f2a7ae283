import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The database a test coordinator uses: SQLite in memory by default; with
 * GANTRY_TEST_DATABASE_URL=postgres://.../postgres a fresh PostgreSQL database per call,
 * dropped again by the returned cleanup.
 */
export async function testDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.GANTRY_TEST_DATABASE_URL;
  if (!adminUrl) return { url: ':memory:', drop: async () => {} };
  const name = `gantry_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
