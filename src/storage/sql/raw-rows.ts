import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteStatement } from 'kysely';

/**
 * Runs a reading statement with its rows built in JavaScript: better-sqlite3 sets each
 * column on a fresh object through the V8 API, which for our wide rows (projects, users:
 * 30+ columns) costs about twice reading them as arrays and building the objects with a
 * literal compiled once per statement (one hidden class, no dictionary-mode objects).
 * The rows are the same objects, with the same keys in the same order (a repeated name
 * keeps its last value, as better-sqlite3 does).
 */
export function rowsAsObjects(statement: BetterSqlite3.Statement): (parameters: readonly unknown[]) => unknown[] {
  return objectRows(statement).all;
}

/**
 * The statement as kysely's SQLite driver uses it (`reader`, `all`, `run`, `iterate`), its
 * rows built as {@link rowsAsObjects} builds them: every query through kysely, writes with
 * `returning` among them, gets the cheaper rows.
 */
export function kyselyStatement(statement: BetterSqlite3.Statement): SqliteStatement {
  if (!statement.reader) return statement;
  const rows = objectRows(statement);
  return {
    reader: true,
    all: rows.all,
    run: (parameters) => statement.run(parameters),
    iterate: rows.iterate,
  };
}

interface ObjectRows {
  all(parameters: readonly unknown[]): unknown[];
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
}

function objectRows(statement: BetterSqlite3.Statement): ObjectRows {
  if (statement.columns().some((column) => column.name === '__proto__')) {
    return { all: (parameters) => statement.all(parameters), iterate: (parameters) => statement.iterate(parameters) as IterableIterator<unknown> };
  }
  let columns = -1;
  let build: (values: unknown[]) => unknown = () => undefined;
  const compile = () => {
    const names = statement.columns().map((column) => column.name);
    const literal = names.map((name, index) => `${JSON.stringify(name)}: values[${index}]`).join(', ');
    // Column names come from SQLite's description of our own statement, each quoted by JSON.stringify.
    build = new Function('values', `return { ${literal} };`) as (values: unknown[]) => unknown;
    columns = names.length;
  };
  // `select *` gains columns when a migration adds some.
  const buildRow = (values: unknown[]) => {
    if (values.length !== columns) compile();
    return build(values);
  };
  statement.raw(true);
  return {
    all(parameters) {
      const rows = statement.all(parameters) as unknown[][];
      if (rows.length > 0 && rows[0]!.length !== columns) compile();
      const objects: unknown[] = rows;
      for (let index = 0; index < rows.length; index += 1) objects[index] = build(rows[index]!);
      return objects;
    },
    *iterate(parameters) {
      for (const values of statement.iterate(parameters) as IterableIterator<unknown[]>) yield buildRow(values);
    },
  };
}
