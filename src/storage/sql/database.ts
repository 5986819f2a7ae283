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
  type SqliteStatement,
} from 'kysely';
import pg from 'pg';
import { classifyWrite, type ChangeListener } from './changes.ts';
import { kyselyStatement, rowsAsObjects } from './raw-rows.ts';
import { endAllReadBatches, ReadBatch, readsForRequest } from './read-batch.ts';
import type { DatabaseSchema } from './schema.ts';

export type Db = Kysely<DatabaseSchema>;
export type DialectName = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  db: Db;
  dialect: DialectName;
  /**
   * A value that changes whenever the database may have changed (a write through this
   * handle, or a commit by another connection); null when it cannot be known cheaply
   * (PostgreSQL, where other coordinators may write). Read caches key on it.
   */
  changeStamp(): string | null;
  /**
   * Tells `listener` what each write through this handle changed, before it runs (SQLite;
   * PostgreSQL, where other coordinators write too, reports nothing). Writes by other
   * connections show in `changeStamp` only.
   */
  onChange(listener: ChangeListener): void;
  /** The part of `changeStamp` that only commits by other connections move (null on PostgreSQL). */
  externalStamp(): string | null;
  /**
   * Called as each request arrives: its reads see every commit made before it, by any
   * connection. On SQLite the requests read from sockets in one poll phase of the event loop
   * share one read transaction (storage/sql/read-batch.ts).
   */
  requestArrived(fromSocket: boolean): void;
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
 * SQLite file path (or `:memory:`).
 */
export function openDatabase(url: string, onIdleError: (error: Error) => void = () => {}, observe?: StatementObserver): OpenedDatabase {
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, onIdleError, observe);
  return openSqlite(url, observe);
}

function observing(observe: StatementObserver | undefined): { log?: (event: LogEvent) => void } {
  return observe ? { log: (event) => observe(event.query.sql, event.query.parameters) } : {};
}

function openSqlite(file: string, observe?: StatementObserver): OpenedDatabase {
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const writes: WriteCounter = { count: 0, listeners: [] };
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const batch = new ReadBatch(sqlite);
  const statements = withStatementCache(sqlite, writes);
  // One snapshot cannot see another connection's commit: a read transaction reads the version once
  // (a cached answer and its caller's sign-in each ask for it).
  let version = { generation: -1, value: '' };
  const readDataVersion = () => {
    if (!batch.enter()) return String(dataVersion.get());
    if (version.generation !== batch.generation) version = { generation: batch.generation, value: String(dataVersion.get()) };
    return version.value;
  };
  const db = new Kysely<DatabaseSchema>({ dialect: new ImmediateSqliteDialect({ database: statements }), ...observing(observe) });
  // Per SQL text: how to run it when it only reads, else null (it queues through kysely).
  const readers = new Map<string, ((parameters: readonly unknown[]) => unknown[]) | null>();
  directReaders.set(db, {
    read(text, parameters) {
      // Inside a transaction the connection is another request's: queue behind it through kysely.
      if (!batch.enter()) return undefined;
      let reader = readers.get(text);
      if (reader === undefined) {
        // A statement of its own, apart from kysely's cache (which ends the shared reads for anything but a plain read).
        const statement = sqlite.prepare(text);
        reader = statement.reader && statement.readonly ? rowsAsObjects(statement) : null;
        readers.set(text, reader);
      }
      if (reader === null) return undefined;
      observe?.(text, parameters);
      return reader(parameters);
    },
  });
  return {
    db,
    dialect: 'sqlite',
    changeStamp: () => `${writes.count}:${readDataVersion()}`,
    onChange: (listener) => writes.listeners.push(listener),
    externalStamp: readDataVersion,
    requestArrived: readsForRequest,
    close: () => {
      batch.end();
      return db.destroy();
    },
  };
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

/**
 * Kysely prepares every query anew, and preparing costs more than running our small
 * queries. The same SQL text reuses its prepared statement (better-sqlite3 runs
 * synchronously, so a statement is never in use twice at once; SQLite re-prepares it
 * itself after a schema change).
 */
interface WriteCounter {
  count: number;
  listeners: ChangeListener[];
}

type Change = ReturnType<typeof classifyWrite>;

function withStatementCache(database: BetterSqlite3.Database, writes: WriteCounter, capacity = 1000): SqliteDatabase {
  const statements = new Map<string, { statement: SqliteStatement; readonly: boolean; change: Change; plainRead: boolean }>();
  return {
    close: () => database.close(),
    prepare(text: string) {
      let prepared = statements.get(text);
      if (!prepared) {
        const statement = database.prepare(text);
        prepared = { statement: kyselyStatement(statement), readonly: statement.readonly, change: statement.readonly ? null : classifyWrite(text), plainRead: statement.readonly && statement.reader };
        statements.set(text, prepared);
        if (statements.size > capacity) statements.delete(statements.keys().next().value as string);
      }
      // Kysely runs what it prepares at once: a write, `begin` or `commit` ends the shared reads first.
      if (!prepared.plainRead) endAllReadBatches();
      return prepared.readonly ? prepared.statement : countingWrites(prepared.statement, prepared.change, writes);
    },
  };
}

/** A writing statement that counts (and reports) each execution before it runs, so no reader can miss it. */
function countingWrites(statement: SqliteStatement, change: Change, writes: WriteCounter): SqliteStatement {
  const counted = (parameters: ReadonlyArray<unknown>) => {
    writes.count += 1;
    if (change) for (const listener of writes.listeners) listener(change(parameters));
  };
  return {
    reader: statement.reader,
    all: (parameters: ReadonlyArray<unknown>) => {
      counted(parameters);
      return statement.all(parameters);
    },
    run: (parameters: ReadonlyArray<unknown>) => {
      counted(parameters);
      return statement.run(parameters);
    },
    iterate: (parameters: ReadonlyArray<unknown>) => {
      counted(parameters);
      return statement.iterate(parameters) as IterableIterator<unknown>;
    },
  };
}

/** `onIdleError`: an idle pooled connection was lost (server restart, database dropped); the pool replaces it. */
function openPostgres(url: string, onIdleError: (error: Error) => void, observe?: StatementObserver): OpenedDatabase {
  // Keep int8 (count(*), bigserial) as JS numbers: ids stay far below 2^53.
  pg.types.setTypeParser(20, (value: string) => Number.parseInt(value, 10));
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // Without a listener, pg rethrows such an error and the whole process stops.
  pool.on('error', onIdleError);
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }), ...observing(observe) });
  return { db, dialect: 'postgres', changeStamp: () => null, onChange: () => {}, externalStamp: () => null, requestArrived: () => {}, close: () => db.destroy() };
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
