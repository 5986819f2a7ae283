/**
 * What a write changed, as read caches need to know it: one row of a table (its own columns
 * only), a table as a whole, or anything at all (see storage/sql/changes.ts).
 */
export type TableChange = { table: string; rowId?: number } | { table: '*' };

export type ChangeListener = (change: TableChange) => void;
