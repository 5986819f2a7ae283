import { sql, type RawBuilder } from '#deps/kysely';
import { dialectOf, type Db } from '../database.ts';

/**
 * Whether `lower(column)` contains `term` (lowered), as a substring test rather than LIKE:
 * no wildcards to escape, and no length limit (SQLite refuses LIKE patterns over 50,000 bytes,
 * so a long `search` answered 500). `instr` on SQLite and `strpos` on PostgreSQL are the
 * same test; both find the empty term in every value, as `LIKE '%%'` does.
 */
export function containsInsensitive(db: Db, column: string, term: string): RawBuilder<boolean> {
  const needle = term.toLowerCase();
  return dialectOf(db) === 'postgres'
    ? sql<boolean>`strpos(lower(${sql.ref(column)}), ${needle}) > 0`
    : sql<boolean>`instr(lower(${sql.ref(column)}), ${needle}) > 0`;
}
