/**
 * Integers as the database holds them: ids and integer attributes are 32-bit columns
 * (`serial` and `integer` on PostgreSQL), as GitLab's are (Gitlab::Database::MAX_INT_VALUE).
 * Larger numbers never reach SQL, where PostgreSQL would refuse them.
 */
export const MAX_INT32 = 2 ** 31 - 1;
export const MIN_INT32 = -(2 ** 31);

/**
 * `text` read as a record id: a number in 1..MAX_INT32 for decimal digits, `null` for digits
 * no record can have (0, or past 32 bits), `undefined` for anything else (a path or a name).
 */
export function parseRecordId(text: string): number | null | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= MAX_INT32 ? id : null;
}
