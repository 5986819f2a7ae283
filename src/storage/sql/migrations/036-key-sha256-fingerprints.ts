import { createHash } from 'node:crypto';
import type { DialectMigration, MigrationDb } from './helpers.ts';

const BATCH = 500;

/** GitLab's `fingerprint_sha256`: the unpadded base64 SHA-256 of the key blob (the second word of the key line). */
function sha256Fingerprint(keyLine: string): string {
  const blob = keyLine.trim().split(/\s+/)[1] ?? '';
  return createHash('sha256').update(Buffer.from(blob, 'base64')).digest('base64').replace(/=+$/, '');
}

async function backfill(db: MigrationDb, table: 'ssh_keys' | 'deploy_keys'): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = (await db.selectFrom(table).select(['id', 'key']).where('id', '>', after).orderBy('id').limit(BATCH).execute()) as { id: number; key: string }[];
    for (const row of rows) {
      await db.updateTable(table).set({ fingerprint_sha256: sha256Fingerprint(row.key) }).where('id', '=', row.id).execute();
    }
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1]!.id;
  }
}

/**
 * The SHA-256 fingerprints of users' SSH keys and of deploy keys, so that `GET /keys?fingerprint=`
 * finds a key by either of the forms `ssh-keygen -l` prints (`SHA256:…` or MD5 colon hex).
 */
export const keySha256Fingerprints: DialectMigration = {
  async up(db) {
    for (const table of ['ssh_keys', 'deploy_keys'] as const) {
      await db.schema.alterTable(table).addColumn('fingerprint_sha256', 'text').execute();
      await backfill(db, table);
      await db.schema.createIndex(`${table}_fingerprint_sha256`).on(table).column('fingerprint_sha256').execute();
    }
  },
};
