import type { CompiledQuery } from 'kysely';
import { directReaderOf, type Db } from './database.ts';

const placeholder = (index: number): string => `\u0000gantry-parameter-${index}\u0000`;

/**
 * A query kysely builds and compiles once, then runs with fresh parameters: on the hot read
 * path building and compiling cost more than running our small indexed queries (the database
 * side keeps its prepared statement by SQL text). `build` receives one placeholder per
 * parameter and must use each exactly once, as a plain value. On SQLite, outside
 * transactions, it runs synchronously on the connection (better-sqlite3 is synchronous
 * anyway; this skips kysely's connection queue).
 */
export function preparedQuery<Row>(db: Db, arity: number, build: (...placeholders: string[]) => CompiledQuery<Row>): (...args: unknown[]) => Promise<Row[]> {
  let compiled: { query: CompiledQuery<Row>; positions: number[] } | undefined;
  const compile = () => {
    const placeholders = Array.from({ length: arity }, (_, index) => placeholder(index));
    const query = build(...placeholders);
    const positions = placeholders.map((value) => query.parameters.indexOf(value));
    if (placeholders.some((value, index) => positions[index]! < 0 || query.parameters.lastIndexOf(value) !== positions[index])) {
      throw new Error(`preparedQuery: each of the ${arity} placeholders must appear once as a parameter: ${query.sql}`);
    }
    return { query, positions };
  };
  const direct = directReaderOf(db);
  return async (...args) => {
    compiled ??= compile();
    const parameters = [...compiled.query.parameters];
    compiled.positions.forEach((position, index) => (parameters[position] = args[index]));
    const rows = direct?.read(compiled.query.sql, parameters);
    if (rows) return rows as Row[];
    const result = await db.executeQuery<Row>({ ...compiled.query, parameters });
    return result.rows;
  };
}

/** The tables whose rows are updated by id and answered whole (`returning *`). */
type UpdatedById = 'projects' | 'namespaces';

/**
 * `update <table> set … where id = ? returning *`, built and compiled by kysely once per set
 * of columns rather than on every edit. The most recently used `capacity` sets are kept (an
 * API edit may name any subset of a project's attributes).
 */
export function preparedUpdateById(db: Db, table: UpdatedById, capacity = 64): (id: number, row: Readonly<Record<string, unknown>>) => Promise<object[]> {
  const byColumns = new Map<string, (...args: unknown[]) => Promise<object[]>>();
  return (id, row) => {
    const columns = Object.keys(row);
    const key = columns.join('\0');
    let update = byColumns.get(key);
    if (update) {
      byColumns.delete(key);
    } else {
      update = preparedQuery<object>(db, columns.length + 1, (...placeholders) =>
        db
          .updateTable(table)
          .set(Object.fromEntries(columns.map((column, index) => [column, placeholders[index]])) as never)
          .where('id', '=', placeholders[columns.length] as never)
          .returningAll()
          .compile(),
      );
      if (byColumns.size >= capacity) byColumns.delete(byColumns.keys().next().value as string);
    }
    byColumns.set(key, update);
    return update(...columns.map((column) => row[column]), id);
  };
}
