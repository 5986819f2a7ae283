/**
 * What a write statement changed, as read caches need to know it: one row of a table (its
 * own columns only), a table as a whole, or anything at all. Worked out from the SQL text
 * once per statement, so no write path can forget to report its change.
 */
import type { TableChange } from '../types-changes.ts';

export type { ChangeListener, TableChange } from '../types-changes.ts';

/**
 * Tables whose `update … where "id" = ?` changes that row alone, with the columns that
 * reads of *other* rows depend on (a fork count reads its forks' `forked_from_id` and
 * `pending_delete`; which projects a group holds reads `namespace_id`; a subtree reads
 * `parent_id`): an update setting one of these counts as a change of the whole table.
 */
const ROW_LOCAL_UPDATES: Record<string, readonly string[]> = {
  projects: ['forked_from_id', 'pending_delete', 'namespace_id'],
  namespaces: ['parent_id'],
  users: [],
};

const TRANSACTION_CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release)\b/i;
const TABLE_WRITE = /^\s*(?:insert(?:\s+or\s+\w+)?\s+into|replace\s+into|update|delete\s+from)\s+"(\w+)"/i;
const ROW_UPDATE = /^\s*update\s+"(\w+)"\s+set\s+(.*)\s+where\s+"id"\s*=\s*\?(?:\s+returning\s+.*)?$/is;

/** How to tell, from a statement's parameters, what one execution of `sql` changed. */
export function classifyWrite(sql: string): ((parameters: readonly unknown[]) => TableChange) | null {
  if (TRANSACTION_CONTROL.test(sql)) return null;
  const row = ROW_UPDATE.exec(sql);
  if (row) {
    const [, table = '', assignments = ''] = row;
    const nonLocal = ROW_LOCAL_UPDATES[table];
    const assigned = [...assignments.matchAll(/"(\w+)"\s*=/g)].map((match) => match[1]);
    if (nonLocal && !assigned.some((column) => column !== undefined && nonLocal.includes(column))) {
      const whereAt = [...sql.matchAll(/\swhere\s+"id"\s*=\s*\?/gi)].at(-1)?.index ?? 0;
      const position = (sql.slice(0, whereAt).match(/\?/g) ?? []).length;
      return (parameters) => {
        const id = parameters[position];
        return typeof id === 'number' ? { table, rowId: id } : { table };
      };
    }
  }
  const write = TABLE_WRITE.exec(sql);
  if (write) {
    const change = { table: write[1] ?? '*' };
    return () => change;
  }
  const everything: TableChange = { table: '*' };
  return () => everything;
}
