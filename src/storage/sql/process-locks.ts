import BetterSqlite3 from 'better-sqlite3';
import { GantryError } from '../../shared/errors.ts';

/** A lock this process holds until it releases it (or dies: the kernel or the database server lets go then). */
export interface HeldLock {
  release(): Promise<void>;
}

/** `gantry` as a number: the key of the session advisory lock taken around every coordinator's start-up. */
const STARTUP_LOCK_KEY = '113668162613881';

const isPostgres = (url: string) => /^postgres(ql)?:\/\//.test(url);

/**
 * One coordinator at a time runs its start-up work (migrations, first-start bootstrap,
 * reconciliation): on PostgreSQL a session advisory lock on a connection of its own, which
 * the server releases should the process die holding it. `onWait` is told when another
 * coordinator holds it. With SQLite only one process serves a file (claimSqliteDatabase), so
 * there is nothing to wait for.
 */
export async function acquireStartupLock(databaseUrl: string, onWait: () => void): Promise<HeldLock> {
  if (!isPostgres(databaseUrl)) return { release: async () => {} };
  // Imported here: a coordinator on SQLite never loads pg.
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  // A connection lost while holding the lock lets the next coordinator in; this one fails its start-up.
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [STARTUP_LOCK_KEY]);
    if (!rows[0]?.locked) {
      onWait();
      await client.query('SELECT pg_advisory_lock($1::bigint)', [STARTUP_LOCK_KEY]);
    }
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return {
    async release() {
      try {
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [STARTUP_LOCK_KEY]);
      } finally {
        await client.end().catch(() => {});
      }
    },
  };
}

/**
 * SQLite serves one coordinator process: a second one would neither wake the first one's long
 * polls nor see its job logs' progress, and its start-up repair would remove the first one's
 * temporary files. The claim is an exclusive lock on a small SQLite file beside the database
 * (`<file>.coordinator-lock`), held until release; the kernel drops it when the process dies,
 * so a crash never leaves a stale claim. Throws GANTRY_E_DATABASE_IN_USE when another
 * process (or another coordinator in this one) holds it. `:memory:` needs no claim.
 */
export function claimSqliteDatabase(file: string): HeldLock {
  if (file === ':memory:' || isPostgres(file)) return { release: async () => {} };
  const lock = new BetterSqlite3(`${file}.coordinator-lock`, { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    // The first write takes the exclusive lock; in EXCLUSIVE locking mode it is never given back.
    lock.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER); DELETE FROM holder;');
    lock.prepare('INSERT INTO holder (pid) VALUES (?)').run(process.pid);
  } catch (error) {
    lock.close();
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') {
      throw new GantryError(
        'GANTRY_E_DATABASE_IN_USE',
        `another coordinator process is serving from the SQLite database ${file}, and SQLite serves one: stop it, or give every coordinator one PostgreSQL database (--database-url postgres://…)`,
        {},
        { cause: error },
      );
    }
    throw error;
  }
  return {
    async release() {
      lock.close();
    },
  };
}
