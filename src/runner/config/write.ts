/**
 * Writing config.toml for `register`, `unregister` and token rotation: a new `[[runners]]`
 * entry is appended and a rotated token replaces the old one's lines (the rest of the file,
 * comments included, stays as it was); removing entries rewrites the file from its parsed
 * form. Every write is a new file renamed over the old one, mode 0600 (it holds tokens).
 */
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { parse, stringify } from 'smol-toml';
import { locateKey } from './locate.ts';

export interface NewRunnerEntry {
  name: string;
  url: string;
  /** The runner's id on the coordinator, when it says (GitLab 16+, Gantry). */
  id?: number;
  token: string;
  tokenObtainedAt?: string;
  tokenExpiresAt?: string | null;
  executor: string;
  shell?: string;
  limit?: number;
  docker?: { image?: string; volumes?: string[]; pull_policy?: string[] };
}

export async function readIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const partial = `${file}.${process.pid}.tmp`;
  await writeFile(partial, text, { mode: 0o600 });
  await rename(partial, file);
  await chmod(file, 0o600);
}

export async function appendRunner(file: string, entry: NewRunnerEntry): Promise<void> {
  const existing = await readIfExists(file);
  const table: Record<string, unknown> = { name: entry.name, url: entry.url };
  if (entry.id !== undefined) table.id = entry.id;
  table.token = entry.token;
  if (entry.tokenObtainedAt) table.token_obtained_at = entry.tokenObtainedAt;
  if (entry.tokenExpiresAt) table.token_expires_at = entry.tokenExpiresAt;
  table.executor = entry.executor;
  if (entry.shell) table.shell = entry.shell;
  if (entry.limit) table.limit = entry.limit;
  if (entry.docker && entry.executor === 'docker') {
    const docker: Record<string, unknown> = {};
    if (entry.docker.image) docker.image = entry.docker.image;
    if (entry.docker.volumes?.length) docker.volumes = entry.docker.volumes;
    if (entry.docker.pull_policy?.length) docker.pull_policy = entry.docker.pull_policy;
    table.docker = docker;
  }
  const block = stringify({ runners: [table] });
  const head = existing ?? 'concurrent = 1\ncheck_interval = 0\n';
  await writeAtomically(file, `${head.replace(/\n*$/, '\n')}\n${block.trim()}\n`);
}

/** Removes the `[[runners]]` entries `drop` selects; returns how many went. */
export async function removeRunners(file: string, drop: (entry: { name?: unknown; url?: unknown; token?: unknown }) => boolean): Promise<number> {
  const text = await readFile(file, 'utf8');
  const document = parse(text) as Record<string, unknown>;
  const runners = Array.isArray(document.runners) ? (document.runners as Record<string, unknown>[]) : [];
  const kept = runners.filter((entry) => !drop(entry));
  if (kept.length === runners.length) return 0;
  document.runners = kept;
  await writeAtomically(file, stringify(document));
  return runners.length - kept.length;
}

/** A runner's new token, as `POST /runners/reset_authentication_token` answered it. */
export interface TokenUpdate {
  token: string;
  obtainedAt: Date;
  /** null: the new token does not expire. */
  expiresAt: Date | null;
}

type Table = Record<string, unknown>;

/**
 * Gives every `[[runners]]` entry of `url` with the token `current` the new token and its
 * `token_obtained_at` / `token_expires_at` (TOML date-times, as gitlab-runner writes them).
 * Only those lines change; should the edit not parse to exactly that (an unusual layout), the
 * file is written from its parsed form instead. Answers the text written, or null when no
 * entry has that token (nothing is written).
 */
export async function replaceRunnerToken(file: string, current: { url: string; token: string }, next: TokenUpdate): Promise<string | null> {
  const text = await readFile(file, 'utf8');
  const document = parse(text) as Table;
  const runners = Array.isArray(document.runners) ? (document.runners as Table[]) : [];
  const indexes = runners.flatMap((entry, index) => (entry.url === current.url && entry.token === current.token ? [index] : []));
  if (indexes.length === 0) return null;
  for (const index of indexes) {
    const entry = runners[index]!;
    entry.token = next.token;
    entry.token_obtained_at = next.obtainedAt;
    if (next.expiresAt) entry.token_expires_at = next.expiresAt;
    else delete entry.token_expires_at;
  }
  let edited = editTokenLines(text, indexes, next);
  if (edited === null || !parsesAs(edited, document)) edited = stringify(document);
  await writeAtomically(file, edited);
  return edited;
}

const tomlDateTime = (date: Date): string => date.toISOString().replace('.000Z', 'Z');

/** The text with the token lines of the entries at `indexes` replaced; null when a line to change cannot be found. */
function editTokenLines(text: string, indexes: readonly number[], next: TokenUpdate): string | null {
  const lines = text.split('\n');
  const replaced = new Map<number, string | null>();
  const inserted = new Map<number, string[]>();
  for (const index of indexes) {
    const tokenLine = locateKey(text, ['runners'], index, 'token').line;
    if (tokenLine === undefined) return null;
    const indent = /^\s*/.exec(lines[tokenLine - 1]!)![0];
    replaced.set(tokenLine, `${indent}token = ${JSON.stringify(next.token)}`);
    const values: Array<[string, string | null]> = [
      ['token_obtained_at', tomlDateTime(next.obtainedAt)],
      ['token_expires_at', next.expiresAt ? tomlDateTime(next.expiresAt) : null],
    ];
    for (const [key, value] of values) {
      const line = locateKey(text, ['runners'], index, key).line;
      if (line !== undefined) replaced.set(line, value === null ? null : `${indent}${key} = ${value}`);
      else if (value !== null) inserted.set(tokenLine, [...(inserted.get(tokenLine) ?? []), `${indent}${key} = ${value}`]);
    }
  }
  const out: string[] = [];
  lines.forEach((line, offset) => {
    const number = offset + 1;
    const replacement = replaced.has(number) ? replaced.get(number) : line;
    if (replacement !== null && replacement !== undefined) out.push(replacement);
    out.push(...(inserted.get(number) ?? []));
  });
  return out.join('\n');
}

function parsesAs(text: string, document: Table): boolean {
  try {
    return sameData(parse(text), document);
  } catch {
    return false;
  }
}

/** Equal as data (dates by their instant). */
function sameData(left: unknown, right: unknown): boolean {
  const normal = (value: unknown): unknown => {
    if (value instanceof Date) return { date: value.getTime() };
    if (Array.isArray(value)) return value.map(normal);
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([key, item]) => [key, normal(item)]));
    return typeof value === 'bigint' ? value.toString() : value;
  };
  return JSON.stringify(normal(left)) === JSON.stringify(normal(right));
}
