import { createRequire } from 'node:module';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type Driver,
  type LogEvent,
  type SqliteDatabase,
  type SqliteDialectConfig,
} from '#deps/kysely';
import { endAllReadBatches, ReadBatch, readsForRequest } from './read-batch.ts';
import type { DatabaseSchema } from './schema.ts';
import { TableWrites } from './table-writes.ts';

export type Db = Kysely<DatabaseSchema>;
export type DialectName = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  db: Db;
  dialect: DialectName;
  /** What the stores built over this handle report of their writes (give it to createSqlStores). */
  writes: TableWrites;
  /**
   * A value that changes whenever another connection commits (SQLite's `data_version`); null
   * when that cannot be known cheaply (PostgreSQL, where other coordinators may write at any
   * time): then nothing may be cached.
   */
  externalStamp(): string | null;
  /**
   * Called as each request arrives: its reads see every commit made before it, by any
   * connection. On SQLite the requests read from sockets in one poll phase of the event loop
   * share one read transaction (storage/sql/read-batch.ts).
   */
  requestArrived(fromSocket: boolean): void;
  /** SQLite only: the whole database as bytes (`sqlite3_serialize`), e.g. to make a schema image. */
  serialize?(): Buffer;
  close(): Promise<void>;
}

/**
 * Runs a read-only statement at once on the connection behind a handle, or answers undefined
 * when it cannot (a transaction holds the connection, or the statement writes): then the
 * query queues through kysely like any other (storage/sql/prepared.ts).
 */
export interface DirectReader {
  read(sql: string, parameters: readonly unknown[]): unknown[] | undefined;
}

const directReaders = new WeakMap<Db, DirectReader>();

/** The synchronous reader of a SQLite handle (not of its transactions), if any. */
export function directReaderOf(db: Db): DirectReader | undefined {
  return directReaders.get(db);
}

/** Told every statement run, with its parameters (diagnostics, tests and benches count them); costs nothing when absent. */
export type StatementObserver = (sql: string, parameters: readonly unknown[]) => void;

/**
 * Opens the database named by `url`: `postgres://...` selects PostgreSQL, anything else is a
 * SQLite file path (or `:memory:`). `sqliteImage`, with `:memory:` only: the in-memory
 * database starts as a copy of those bytes (a serialized database, `serialize` of another)
 * instead of empty.
 */
export function openDatabase(url: string, onIdleError: (error: Error) => void = () => {}, observe?: StatementObserver, sqliteImage?: Buffer): OpenedDatabase {
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, onIdleError, observe);
  if (sqliteImage !== undefined && url !== ':memory:') throw new Error('a SQLite image opens as an in-memory database only (":memory:")');
  return openSqlite(sqliteImage ?? url, observe);
}

function observing(observe: StatementObserver | undefined): { log?: (event: LogEvent) => void } {
  return observe ? { log: (event) => observe(event.query.sql, event.query.parameters) } : {};
}

function openSqlite(fileOrImage: string | Buffer, observe?: StatementObserver): OpenedDatabase {
  const sqlite = new BetterSqlite3(fileOrImage);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const batch = new ReadBatch(sqlite);
  const statements = new StatementCache(sqlite);
  // One snapshot cannot see another connection's commit: a read transaction reads the version once
  // (a cached answer and its caller's sign-in each ask for it).
  let version = { generation: -1, value: '' };
  const readDataVersion = () => {
    if (!batch.enter()) return String(dataVersion.get());
    if (version.generation !== batch.generation) version = { generation: batch.generation, value: String(dataVersion.get()) };
    return version.value;
  };
  const kyselyDatabase: SqliteDatabase = {
    close: () => sqlite.close(),
    prepare(text) {
      const statement = statements.get(text);
      // Kysely runs what it prepares at once: a write, `begin` or `commit` ends the shared reads first.
      if (!isPlainRead(statement)) endAllReadBatches();
      return statement;
    },
  };
  const db = new Kysely<DatabaseSchema>({ dialect: new ImmediateSqliteDialect({ database: kyselyDatabase }), ...observing(observe) });
  directReaders.set(db, {
    read(text, parameters) {
      // Inside a transaction the connection is another request's: queue behind it through kysely.
      if (!batch.enter()) return undefined;
      const statement = statements.get(text);
      if (!isPlainRead(statement)) return undefined;
      observe?.(text, parameters);
      return statement.all(parameters);
    },
  });
  return {
    db,
    dialect: 'sqlite',
    writes: new TableWrites(),
    externalStamp: readDataVersion,
    requestArrived: readsForRequest,
    serialize: () => sqlite.serialize(),
    close: () => {
      batch.end();
      return db.destroy();
    },
  };
}

const isPlainRead = (statement: BetterSqlite3.Statement): boolean => statement.reader && statement.readonly;

/**
 * The connection's prepared statements, one per SQL text, for kysely and the direct reads
 * alike: kysely prepares every query anew, and preparing costs more than running our small
 * queries. better-sqlite3 runs synchronously, so a statement is never in use twice at once;
 * SQLite prepares a statement again itself after a schema change, and better-sqlite3 then
 * names the row's keys after the new columns.
 */
class StatementCache {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(
    private readonly sqlite: BetterSqlite3.Database,
    private readonly capacity = 1000,
  ) {}

  get(text: string): BetterSqlite3.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.sqlite.prepare(text);
      this.statements.set(text, statement);
      if (this.statements.size > this.capacity) this.statements.delete(this.statements.keys().next().value as string);
    }
    return statement;
  }
}

/**
 * Transactions start with `BEGIN IMMEDIATE`: the write lock is taken at once, so two
 * connections (two processes on one file) running read-then-write transactions queue behind
 * each other instead of one failing with SQLITE_BUSY when it upgrades its read lock. Within
 * one process kysely's single SQLite connection already runs one transaction at a time.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** `onIdleError`: an idle pooled connection was lost (server restart, database dropped); the pool replaces it. */
function openPostgres(url: string, onIdleError: (error: Error) => void, observe?: StatementObserver): OpenedDatabase {
  // Required here, not imported above: a process on SQLite never loads pg (0.1 s of CPU).
  const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
  // Keep int8 (count(*), bigserial) as JS numbers: ids stay far below 2^53.
  pg.types.setTypeParser(20, (value: string) => Number.parseInt(value, 10));
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // Without a listener, pg rethrows such an error and the whole process stops.
  pool.on('error', onIdleError);
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }), ...observing(observe) });
  return { db, dialect: 'postgres', writes: new TableWrites(), externalStamp: () => null, requestArrived: () => {}, close: () => db.destroy() };
}

/** The backend behind a handle (or a transaction on it). */
export function dialectOf(db: Db): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Runs `work` in one transaction, or inside the caller's transaction when `db` already is
 * one. Everything inside must go through the handle `work` receives: on SQLite the one
 * connection is held by the transaction, so a query on the outer handle would wait forever.
 */
export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  return db.transaction().execute(work);
}

export { isRetryableConflict, isUniqueViolation } from '../errors.ts';

/** `count(*)` as a number on both backends. */
export const countAll = () => sql<number>`count(*)`;

export function toBoolean(value: number | boolean | null | undefined): boolean {
  return value === true || value === 1;
}

export function fromBoolean(value: boolean): number {
  return value ? 1 : 0;
}
