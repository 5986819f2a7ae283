import type { CompiledQuery } from '#deps/kysely';
import { directReaderOf, type Db } from './database.ts';

const placeholder = (index: number): string => `\u0000gantry-parameter-${index}\u0000`;

/**
 * A read kysely builds and compiles once, then runs with fresh parameters: on the hot read
 * path building and compiling (about 10 µs) cost more than running our small indexed queries.
 * `build` is called once, with a placeholder standing for each of its parameters (its
 * `length`: no defaults, no rest parameters), and must use each exactly once, as a plain
 * value; each call then puts its arguments where the placeholders landed. On SQLite, outside
 * transactions, it runs synchronously on the connection (better-sqlite3 is synchronous
 * anyway; this skips kysely's connection queue).
 */
export function preparedQuery<Args extends unknown[], Row>(db: Db, build: (...args: Args) => CompiledQuery<Row>): (...args: Args) => Promise<Row[]> {
  let compiled: { query: CompiledQuery<Row>; positions: number[] } | undefined;
  const compile = () => {
    const placeholders = Array.from({ length: build.length }, (_, index) => placeholder(index));
    // The placeholders stand for the caller's values only while kysely compiles: they never reach the database.
    const query = build(...(placeholders as Args));
    const positions = placeholders.map((value) => query.parameters.indexOf(value));
    if (placeholders.some((value, index) => positions[index]! < 0 || query.parameters.lastIndexOf(value) !== positions[index])) {
      throw new Error(`preparedQuery: each of the ${build.length} placeholders must appear once as a parameter: ${query.sql}`);
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
