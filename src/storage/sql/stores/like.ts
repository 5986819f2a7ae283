import { sql, type RawBuilder, type SqlBool } from '#deps/kysely';
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

/** GitLab's Gitlab::SQL::Pattern: words shorter than this match only as the whole query (milestones take 2). */
const MIN_TERM_CHARS = 3;
/** At most this many distinct words count (GitLab's search page refuses more than 64). */
export const MAX_SEARCH_TERMS = 64;
/** A double-quoted phrase between spaces (or the ends) is one term. */
const QUOTED_TERM = /(?<=^| )"[^"]+"(?= |$)/g;

/**
 * A search as Gitlab::SQL::Pattern reads it: the query squished (whitespace collapsed), split
 * into words, a quoted phrase kept whole, and only terms of at least `minChars` characters (three, unless given) kept.
 * Undefined for a blank query (no filter at all).
 */
export function searchTerms(query: string, minChars = MIN_TERM_CHARS): { squished: string; terms: string[] } | undefined {
  const squished = query.trim().replace(/\s+/g, ' ');
  if (squished === '') return undefined;
  const quoted: string[] = [];
  const rest = squished.replace(QUOTED_TERM, (phrase) => {
    quoted.push(phrase.slice(1, -1));
    return '';
  });
  const words = [...rest.split(' ').filter((word) => word !== ''), ...quoted].filter((term) => [...term].length >= minChars);
  return { squished, terms: [...new Set(words)].slice(0, MAX_SEARCH_TERMS) };
}

/**
 * GitLab's `fuzzy_search` over these columns: a row matches when one column contains every
 * term (case-insensitive), or, when no term is long enough, when one column equals the whole
 * query (case-insensitive, no wildcards). Undefined for a blank query. User text never becomes
 * a LIKE pattern (see containsInsensitive), so `%` and `_` are plain characters.
 */
export function fuzzyMatch(db: Db, columns: readonly string[], query: string, minChars = MIN_TERM_CHARS): RawBuilder<SqlBool> | undefined {
  const read = searchTerms(query, minChars);
  if (!read) return undefined;
  const { squished, terms } = read;
  const perColumn = columns.map((column) =>
    terms.length > 0
      ? sql`(${sql.join(terms.map((term) => containsInsensitive(db, column, term)), sql` and `)})`
      : sql`lower(${sql.ref(column)}) = ${squished.toLowerCase()}`,
  );
  return sql<SqlBool>`(${sql.join(perColumn, sql` or `)})`;
}
