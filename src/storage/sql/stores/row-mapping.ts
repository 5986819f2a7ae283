/**
 * Converts between portable rows (booleans as 0/1, lists and maps as JSON text) and domain
 * records.
 */

/** The fields of R holding booleans (stored as 0/1). */
type BooleanKeys<R> = { [K in keyof R]-?: [NonNullable<R[K]>] extends [boolean] ? K : never }[keyof R];
/** The fields of R holding lists or maps (stored as JSON text). */
type JsonKeys<R> = { [K in keyof R]-?: [NonNullable<R[K]>] extends [object] ? K : never }[keyof R];

/** Every boolean and JSON field of R, named once each: a field added to R and not listed here fails to compile. */
export type ColumnKindsOf<R> = { readonly [K in BooleanKeys<R>]: 'boolean' } & { readonly [K in JsonKeys<R>]: 'json' };

/** The column values of (part of) a record of R: booleans as 0/1, lists and maps as JSON text, the rest as they are. */
export type ColumnsOf<R, P extends Partial<R>> = { [K in keyof P]: K extends BooleanKeys<R> ? number : K extends JsonKeys<R> ? string : P[K] };

/**
 * How the records R of one table are stored. The values `toColumns` answers are typed as
 * columns, so kysely checks each insert and update against the table.
 */
export class ColumnKinds<R> {
  private readonly booleans: readonly string[];
  private readonly json: readonly string[];

  constructor(kinds: ColumnKindsOf<R>) {
    const entries = Object.entries(kinds);
    this.booleans = entries.filter(([, kind]) => kind === 'boolean').map(([name]) => name);
    this.json = entries.filter(([, kind]) => kind === 'json').map(([name]) => name);
  }

  /**
   * The record a row holds, converted in place: every query returns fresh row objects, and a
   * copy of a wide row (projects, users: 30+ columns) costs more than the conversion. The
   * database holds what `toColumns` wrote, so the row's values are the record's.
   */
  toRecord(row: object): R {
    const values = row as Record<string, unknown>;
    for (const name of this.booleans) if (name in values) values[name] = values[name] === 1 || values[name] === true;
    for (const name of this.json) {
      const value = values[name];
      if (typeof value === 'string') values[name] = JSON.parse(value);
    }
    return row as R;
  }

  /** The columns of the fields present in `record` (undefined ones are left out). */
  toColumns<P extends Partial<R>>(record: P): ColumnsOf<R, P> {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(record)) {
      if (value !== undefined) out[name] = value;
    }
    for (const name of this.booleans) if (typeof out[name] === 'boolean') out[name] = out[name] ? 1 : 0;
    for (const name of this.json) if (name in out) out[name] = JSON.stringify(out[name]);
    return out as ColumnsOf<R, P>;
  }
}

/** The listed columns of a row (a join's row holding other columns too), in their order. */
export function pickColumns<C extends string>(row: Readonly<Record<C, unknown>>, columns: readonly C[]): Record<C, unknown> {
  const picked = {} as Record<C, unknown>;
  for (const column of columns) picked[column] = row[column];
  return picked;
}
