import { sql, type Expression, type RawBuilder } from '#deps/kysely';
import type { Db } from '../database.ts';
import { containsInsensitive } from './like.ts';

/** At most this many terms of a query are matched (the rest are ignored), so a query's SQL stays bounded. */
export const MAX_FUZZY_TERMS = 20;

/**
 * The terms of a search as GitLab's Gitlab::SQL::Pattern splits them: each `"quoted phrase"`
 * (standing alone between spaces) is one term, every other word another; whitespace is squished.
 */
export function fuzzyTerms(query: string): string[] {
  const squished = query.trim().replace(/\s+/g, ' ');
  const quoted: string[] = [];
  const rest = squished.replace(/(?<=^| )"[^"]+"(?= |$)/g, (term) => {
    quoted.push(term.slice(1, -1));
    return '';
  });
  return [...rest.split(' ').filter((word) => word !== ''), ...quoted];
}

/**
 * GitLab's fuzzy_search over `columns`: a row matches when, in one of the columns, every term
 * of at least `minChars` characters is a case-insensitive substring; when no term is that long,
 * when the column equals the whole (squished) query, case aside. A substring test, so `%` and `_`
 * in the query are plain characters, as GitLab's sanitize_sql_like makes them. Undefined for a
 * blank query (no condition).
 */
export function fuzzyMatch(db: Db, columns: readonly string[], query: string, minChars: number): Expression<boolean> | undefined {
  const whole = query.trim().replace(/\s+/g, ' ');
  if (whole === '') return undefined;
  const terms = fuzzyTerms(whole).filter((term) => [...term].length >= minChars).slice(0, MAX_FUZZY_TERMS);
  const perColumn = columns.map((column): RawBuilder<boolean> => {
    if (terms.length === 0) return sql<boolean>`lower(${sql.ref(column)}) = ${whole.toLowerCase()}`;
    return sql<boolean>`(${sql.join(terms.map((term) => containsInsensitive(db, column, term)), sql` and `)})`;
  });
  return sql<boolean>`(${sql.join(perColumn, sql` or `)})`;
}
