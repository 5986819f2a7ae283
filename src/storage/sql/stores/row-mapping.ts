/**
 * Converts between portable rows (booleans as 0/1, lists as JSON text) and domain records.
 */
export interface ColumnKinds<R> {
  booleans: ReadonlyArray<keyof R>;
  json?: ReadonlyArray<keyof R>;
}

type Converter = (row: Record<string, unknown>) => void;

/** One converter per kinds object (each store passes a constant one), each with inline caches of its own. */
const converters = new WeakMap<ColumnKinds<unknown>, Converter>();

function compileConverter(kinds: ColumnKinds<unknown>): Converter {
  // Column names come from the stores' own constants, each quoted by JSON.stringify.
  const steps = [
    ...kinds.booleans.map((key) => {
      const name = JSON.stringify(key);
      return `if (${name} in row) row[${name}] = row[${name}] === 1 || row[${name}] === true;`;
    }),
    ...(kinds.json ?? []).map((key) => {
      const name = JSON.stringify(key);
      return `if (typeof row[${name}] === 'string') row[${name}] = JSON.parse(row[${name}]);`;
    }),
  ];
  return new Function('row', steps.join('\n')) as Converter;
}

/**
 * The record a row holds, converted in place: every query returns fresh row objects, and a
 * copy of a wide row (projects, users: 30+ columns) cost more than the conversion itself on
 * the read path.
 */
export function rowToRecord<R>(row: object, kinds: ColumnKinds<R>): R {
  let convert = converters.get(kinds as ColumnKinds<unknown>);
  if (!convert) {
    convert = compileConverter(kinds as ColumnKinds<unknown>);
    converters.set(kinds as ColumnKinds<unknown>, convert);
  }
  convert(row as Record<string, unknown>);
  return row as R;
}

/** A function copying `columns` (and nothing else) of a row into a fresh object: one literal, compiled once. */
export function pickColumns(columns: readonly string[]): (row: object) => Record<string, unknown> {
  // Column names come from the stores' own constants, each quoted by JSON.stringify.
  const literal = columns.map((column) => `${JSON.stringify(column)}: row[${JSON.stringify(column)}]`).join(', ');
  return new Function('row', `return { ${literal} };`) as (row: object) => Record<string, unknown>;
}

/** Converts the record fields present in `record` into column values. */
export function recordToRow<R>(record: Partial<R>, kinds: ColumnKinds<R>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record)) {
    if (value === undefined) continue;
    out[name] = value;
  }
  for (const key of kinds.booleans) {
    const name = key as string;
    if (typeof out[name] === 'boolean') out[name] = out[name] ? 1 : 0;
  }
  for (const key of kinds.json ?? []) {
    const name = key as string;
    if (name in out) out[name] = JSON.stringify(out[name]);
  }
  return out;
}
