import type { CreateTableBuilder, Kysely } from 'kysely';
import type { DialectName } from '../database.ts';

/** Kysely's Migration takes `Kysely<any>`; our migrations see this narrower alias. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type MigrationDb = Kysely<any>;

export interface DialectMigration {
  up(db: MigrationDb, dialect: DialectName): Promise<void>;
}

/** An auto-incrementing integer primary key on either backend. */
export function withId<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: DialectName,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}
