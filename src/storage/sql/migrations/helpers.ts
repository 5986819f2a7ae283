import { sql, type CreateTableBuilder, type Kysely, type RawBuilder, type SqlBool } from '#deps/kysely';
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

/** Column types that differ by backend: 64-bit integers, binary data, floating point. */
export function columnTypes(dialect: DialectName) {
  return {
    bigint: 'bigint',
    bytes: dialect === 'postgres' ? 'bytea' : 'blob',
    double: dialect === 'postgres' ? 'double precision' : 'real',
  } as const;
}

/** The WHERE of a partial index, written as SQL text (literals, no parameters). */
export function partial(condition: string): RawBuilder<SqlBool> {
  return sql.raw<SqlBool>(condition);
}
