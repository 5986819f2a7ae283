import type { ChangeFeed, ChangeListener, TableChange } from '../types-changes.ts';

/**
 * The stores' reports of their own writes to the tables read caches depend on
 * (`ReportedTable`): each store that writes one of them says what it is about to change,
 * before the statement runs, so that no answer computed meanwhile is kept. Nothing is
 * worked out from SQL text; a write to any other table is not reported, and no cached answer
 * may depend on one.
 */
export class TableWrites implements ChangeFeed {
  private readonly listeners: ChangeListener[] = [];

  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  report(change: TableChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

/** A change of everything: deletes of users, namespaces and projects cascade through foreign keys to other tables. */
export const EVERYTHING: TableChange = { table: '*' };
