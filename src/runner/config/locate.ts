/**
 * Where a key or table sits in a TOML text, for diagnostics (smol-toml gives positions only
 * for syntax errors). Tracks `[table]` and `[[array]]` headers line by line; good enough for
 * the flat layout config.toml uses.
 */

export interface Position {
  line?: number;
  column?: number;
}

function header(line: string): { name: string[]; array: boolean } | null {
  const match = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
  if (!match) return null;
  return { name: match[2].split('.').map((part) => part.trim().replace(/^"|"$/g, '')), array: match[1] === '[[' };
}

function scan(text: string, visit: (line: string, number: number, table: string[], index: number) => Position | null): Position {
  let table: string[] = [];
  const counters = new Map<string, number>();
  let index = -1;
  const lines = text.split('\n');
  for (let number = 0; number < lines.length; number++) {
    const parsed = header(lines[number]);
    if (parsed) {
      table = parsed.name;
      if (parsed.array) {
        const name = parsed.name.join('.');
        const next = (counters.get(name) ?? -1) + 1;
        counters.set(name, next);
        if (parsed.name.length === 1) index = next;
      }
    }
    const found = visit(lines[number], number + 1, table, index);
    if (found) return found;
  }
  return {};
}

/** The `key = ...` line in the table `tables` (of the `index`-th `[[runners]]` when given). */
export function locateKey(text: string, tables: string[], index: number | undefined, key: string): Position {
  const pattern = new RegExp(`^(\\s*)("?)${key.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}\\2\\s*=`);
  const assigned = scan(text, (line, number, table, at) => {
    if (table.join('.') !== tables.join('.') || (index !== undefined && at !== index)) return null;
    const match = pattern.exec(line);
    return match ? { line: number, column: match[1].length + 1 } : null;
  });
  if (assigned.line) return assigned;
  // A key that is itself a table: its `[tables.key]` header.
  const wanted = [...tables, key].join('.');
  return scan(text, (line, number, table, at) => {
    const parsed = header(line);
    if (!parsed || table.join('.') !== wanted || (index !== undefined && at !== index)) return null;
    return { line: number, column: line.indexOf('[') + 1 };
  });
}

/** The header line of the `index`-th `[[name]]`. */
export function locateTable(text: string, name: string, index: number): Position {
  return scan(text, (line, number, table, at) => {
    const parsed = header(line);
    return parsed?.array && table.join('.') === name && at === index ? { line: number, column: line.indexOf('[') + 1 } : null;
  });
}
