/**
 * Failures of the storage layer that callers above it may act on, without knowing which
 * database answered: a unique value taken (SQLite or PostgreSQL constraint codes).
 */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
