/**
 * The tables whose writes the stores report (storage/sql/table-writes.ts): a read cache may
 * keep an answer only as long as it depends on nothing else.
 */
export type ReportedTable = 'users' | 'personal_tokens' | 'namespaces' | 'projects' | 'members' | 'group_group_links' | 'project_group_links' | 'stars' | 'custom_attributes';

/**
 * What a write is about to change: one row of a table (its own columns only), a table as a
 * whole, or anything at all (a delete whose foreign keys cascade).
 */
export type TableChange = { table: ReportedTable; rowId?: number } | { table: '*' };

export type ChangeListener = (change: TableChange) => void;

/** Where a read cache hears of the writes made through this process's stores. */
export interface ChangeFeed {
  onChange(listener: ChangeListener): void;
}
