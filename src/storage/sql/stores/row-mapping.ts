/**
 * Converts between portable rows (booleans as 0/1, lists as JSON text) and domain records.
 */
export interface ColumnKinds<R> {
  booleans: ReadonlyArray<keyof R>;
  json?: ReadonlyArray<keyof R>;
}

export function rowToRecord<R>(row: object, kinds: ColumnKinds<R>): R {
  const out: Record<string, unknown> = { ...row };
  for (const key of kinds.booleans) {
    const name = key as string;
    if (name in out) out[name] = out[name] === 1 || out[name] === true;
  }
  for (const key of kinds.json ?? []) {
    const name = key as string;
    if (typeof out[name] === 'string') out[name] = JSON.parse(out[name] as string);
  }
  return out as R;
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
