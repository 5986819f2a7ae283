import { sql, type RawBuilder } from 'kysely';

/**
 * `lower(column) LIKE '%term%'` with the term's wildcards escaped; the explicit ESCAPE clause
 * keeps it the same on SQLite (no default escape) and PostgreSQL.
 */
export function containsInsensitive(column: string, term: string): RawBuilder<boolean> {
  const escaped = term.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`);
  return sql<boolean>`lower(${sql.ref(column)}) like ${`%${escaped}%`} escape '\\'`;
}
