import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { isMissingFile } from '../fs/durable.ts';
import type { RepositoryState } from './types.ts';

/** Directory names of repositories: `<project id>.git`. */
export function projectIdOfDirectory(name: string): number | null {
  const match = /^([1-9]\d{0,15})\.git$/.exec(name);
  if (!match) return null;
  const id = Number(match[1]);
  return Number.isSafeInteger(id) ? id : null;
}

/**
 * Reads one repository for start-up reconciliation: HEAD, branches (loose refs and
 * packed-refs), config; and removes what a git process killed mid-write leaves behind: lock
 * files (which would refuse every later update of that ref) and receive-pack quarantines. Only
 * safe while no git process works on the repository. A file that is not there counts as
 * empty; one that cannot be read is named in `unreadable` (what was read of it is no ground
 * for a repair).
 */
export async function inspectRepository(projectId: number, gitDir: string): Promise<RepositoryState> {
  const unreadable: string[] = [];
  const orWhenMissing = async <T>(name: string, reading: Promise<T>, missing: T): Promise<T> => {
    try {
      return await reading;
    } catch (error) {
      if (!isMissingFile(error)) unreadable.push(`${name}: ${errorCode(error)}`);
      return missing;
    }
  };
  const [headText, config, packed, loose, objects] = await Promise.all([
    orWhenMissing('HEAD', readFile(path.join(gitDir, 'HEAD'), 'utf8'), ''),
    orWhenMissing<string | null>('config', readFile(path.join(gitDir, 'config'), 'utf8'), null),
    orWhenMissing('packed-refs', readFile(path.join(gitDir, 'packed-refs'), 'utf8'), ''),
    orWhenMissing('refs', readdir(path.join(gitDir, 'refs'), { recursive: true, withFileTypes: true }), []),
    orWhenMissing('objects', readdir(path.join(gitDir, 'objects')), [] as string[]),
  ]);
  const branches = new Set<string>();
  for (const line of packed.split('\n')) {
    const match = /^[0-9a-f]{40,64} refs\/heads\/(.+)$/.exec(line);
    if (match) branches.add(match[1]!);
  }
  const removedLeftovers: string[] = [];
  const refsDir = path.join(gitDir, 'refs');
  for (const entry of loose) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    const relative = path.relative(refsDir, file).split(path.sep).join('/');
    if (entry.name.endsWith('.lock')) {
      await rm(file, { force: true });
      removedLeftovers.push(`refs/${relative}`);
    } else if (relative.startsWith('heads/')) {
      branches.add(relative.slice('heads/'.length));
    }
  }
  for (const name of ['HEAD.lock', 'config.lock', 'packed-refs.lock']) {
    if (await orWhenMissing(name, rm(path.join(gitDir, name)).then(() => true), false)) removedLeftovers.push(name);
  }
  for (const name of objects) {
    if (!name.startsWith('tmp_objdir-')) continue;
    await rm(path.join(gitDir, 'objects', name), { recursive: true, force: true });
    removedLeftovers.push(`objects/${name}`);
  }
  const head = /^ref: refs\/heads\/(\S+)\s*$/.exec(headText)?.[1] ?? null;
  return { projectId, gitDir, head, branches: [...branches].sort(), config, removedLeftovers, unreadable };
}

function errorCode(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : String(error);
}
