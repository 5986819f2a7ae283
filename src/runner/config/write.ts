/**
 * Writing config.toml for `register` and `unregister`: a new `[[runners]]` entry is appended
 * (the rest of the file, comments included, stays as it was); removing entries rewrites the
 * file from its parsed form. The file is created with mode 0600 (it holds tokens).
 */
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { parse, stringify } from 'smol-toml';

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
