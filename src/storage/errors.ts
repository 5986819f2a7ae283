/**
 * Failures of the storage layer that callers above it may act on, without knowing which
 * database answered: a unique value taken (SQLite or PostgreSQL constraint codes), a
 * transaction worth running again.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/**
 * True when the database gave up on a transaction that may succeed when run again:
 * PostgreSQL deadlocks and serialization failures, SQLite's busy timeout.
 */
export function isRetryableConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '40P01' || code === '40001' || code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT';
}
