import { sql } from '#deps/kysely';
import { GantryError, isGantryError } from '../../shared/errors.ts';
import { SecretBox } from '../secret-box.ts';
import { inTransaction, type Db } from './database.ts';

/** The columns the stores seal (SecretBox), by table, with each table's primary key. */
export const SEALED_COLUMNS: ReadonlyArray<{ table: string; key: readonly string[]; columns: readonly string[] }> = [
  { table: 'ci_variables', key: ['id'], columns: ['value'] },
  { table: 'ci_group_variables', key: ['id'], columns: ['value'] },
  { table: 'ci_instance_variables', key: ['id'], columns: ['value'] },
  { table: 'ci_pipeline_schedule_variables', key: ['id'], columns: ['value'] },
  { table: 'ci_pipeline_variables', key: ['id'], columns: ['value'] },
  { table: 'ci_job_variables', key: ['artifact_id', 'position'], columns: ['value'] },
  { table: 'ci_jobs', key: ['id'], columns: ['environment_variables'] },
  { table: 'web_hooks', key: ['id'], columns: ['url', 'token'] },
  { table: 'integrations', key: ['id'], columns: ['properties'] },
  { table: 'ci_signing_key', key: ['id'], columns: ['private_key'] },
];

const KEY_CHECK_TEXT = 'gantry secret key check';
const BATCH = 500;

/**
 * Makes sure `box` holds the key the database's secrets are sealed with: the first start seals
 * a known text into `gantry_secret_key_check`; a later start must open it, or is refused with
 * a message that says what to do. Opened with an older key of the ring (a rotation), the check
 * is sealed again with the current one, and a coordinator still on the old key alone is then
 * refused. Runs under the start-up lock.
 */
export async function checkSecretKey(db: Db, box: SecretBox, now: string): Promise<void> {
  const row = await db.selectFrom('gantry_secret_key_check').select('sealed').where('id', '=', 1).executeTakeFirst();
  if (!row) {
    await db
      .insertInto('gantry_secret_key_check')
      .values({ id: 1, sealed: box.seal(KEY_CHECK_TEXT), updated_at: now })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
    return;
  }
  let opened: string;
  try {
    opened = box.open(row.sealed);
  } catch (error) {
    if (!isGantryError(error) || error.code !== 'GANTRY_E_SECRET_UNREADABLE') throw error;
    const sealedWith = SecretBox.keyIdOfSealed(row.sealed) ?? '?';
    throw new GantryError(
      'GANTRY_E_SECRET_KEY_MISMATCH',
      `the database's secrets are sealed with secret key ${sealedWith}, and this coordinator has ${box.keyIds.join(', ')}: start it with the key the other coordinators use (secret_keys, GANTRY_SECRET_KEYS or <data dir>/secret.key); to change keys, list the new key first and the old one after it`,
      {},
      { cause: error },
    );
  }
  if (opened !== KEY_CHECK_TEXT) throw new GantryError('GANTRY_E_SECRET_KEY_MISMATCH', 'the secret key check of the database holds an unexpected text');
  if (SecretBox.keyIdOfSealed(row.sealed) !== box.currentKeyId) {
    await db.updateTable('gantry_secret_key_check').set({ sealed: box.seal(KEY_CHECK_TEXT), updated_at: now }).where('id', '=', 1).execute();
  }
}

/**
 * Seals every secret not yet sealed with the current key: rows stored in clear before
 * encryption (or by an older coordinator still running), and rows sealed with an older key of
 * the ring. Each value is replaced only if it is still the one read, so a write racing the pass
 * wins; a second pass finds nothing to do. Answers how many values were sealed.
 */
export async function sealStoredSecrets(db: Db, box: SecretBox, batch = BATCH): Promise<number> {
  let sealed = 0;
  for (const { table, key, columns } of SEALED_COLUMNS) {
    for (const column of columns) sealed += await sealColumn(db, box, { table, key, column, batch });
  }
  return sealed;
}

interface SealedColumn {
  table: string;
  key: readonly string[];
  column: string;
  batch: number;
}

/**
 * The next batch of a column's values not sealed with the key of `prefix`, after the row whose
 * key is `after`. ci_jobs' rows are read through a partial index of those with a value (migration 059).
 */
export function unsealedBatch({ table, key, column, batch }: SealedColumn, prefix: string, after: readonly unknown[] | undefined) {
  const keyList = sql.join(key.map((name) => sql.ref(name)));
  const notCurrent = sql`${sql.ref(column)} IS NOT NULL AND substr(${sql.ref(column)}, 1, ${prefix.length}) <> ${prefix}`;
  const past = after === undefined ? sql`` : sql`AND (${keyList}) > (${sql.join(after.map((value) => sql`${value}`))})`;
  return sql<Record<string, unknown>>`SELECT ${keyList}, ${sql.ref(column)} AS stored FROM ${sql.table(table)} WHERE ${notCurrent} ${past} ORDER BY ${keyList} LIMIT ${batch}`;
}

async function sealColumn(db: Db, box: SecretBox, sealedColumn: SealedColumn): Promise<number> {
  const { table, key, column, batch } = sealedColumn;
  const prefix = box.currentPrefix;
  let after: unknown[] | undefined;
  let sealed = 0;
  for (;;) {
    const { rows } = await unsealedBatch(sealedColumn, prefix, after).execute(db);
    // One commit a batch, not a row.
    sealed += await inTransaction(db, async (trx) => {
      let count = 0;
      for (const row of rows) {
        const stored = row.stored as string;
        const plaintext = openOrExplain(box, stored, `${table}.${column} of the row ${key.map((name) => `${name} ${String(row[name])}`).join(', ')}`);
        const matches = sql.join(key.map((name) => sql`${sql.ref(name)} = ${row[name]}`), sql` AND `);
        const result = await sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${box.seal(plaintext)} WHERE ${matches} AND ${sql.ref(column)} = ${stored}`.execute(trx);
        count += Number(result.numAffectedRows ?? 0);
      }
      return count;
    });
    if (rows.length < batch) return sealed;
    const last = rows[rows.length - 1]!;
    after = key.map((name) => last[name]);
  }
}

/** A value the ring cannot open stops the start: the message names the row, so it can be dealt with. */
function openOrExplain(box: SecretBox, stored: string, where: string): string {
  try {
    return box.open(stored);
  } catch (error) {
    if (!isGantryError(error)) throw error;
    throw new GantryError(error.code, `${where}: ${error.message}; give the coordinator that key after its current one, or clear the value`, error.details, { cause: error });
  }
}
