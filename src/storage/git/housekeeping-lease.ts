import { randomUUID } from 'node:crypto';
import { rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isMissingFile } from '../fs/durable.ts';

/** The lease file inside a repository: its presence means housekeeping is queued or running. */
const LEASE_FILE = 'gantry-housekeeping.lease';

/**
 * GitLab's housekeeping lease, kept as a file in the repository so every coordinator sharing
 * the repositories' root sees it: taken when housekeeping is asked for, released when the task
 * ends. A lease older than `ttlMs` (its holder died without releasing it) is taken over.
 */
export async function takeHousekeepingLease(gitDir: string, now: number, ttlMs: number): Promise<boolean> {
  const file = path.join(gitDir, LEASE_FILE);
  if (await createExclusively(file, now)) return true;
  const modified = await stat(file).then(
    (stats) => stats.mtimeMs,
    (error: unknown) => (isMissingFile(error) ? null : Promise.reject(error)),
  );
  if (modified !== null && now - modified < ttlMs) return false;
  // Renaming is atomic: of two coordinators taking over a stale lease, one moves it away.
  const moved = path.join(gitDir, `${LEASE_FILE}.stale-${randomUUID()}`);
  const won = await rename(file, moved).then(
    () => true,
    () => modified === null,
  );
  await rm(moved, { force: true });
  return won && createExclusively(file, now);
}

export async function releaseHousekeepingLease(gitDir: string): Promise<void> {
  await rm(path.join(gitDir, LEASE_FILE), { force: true });
}

async function createExclusively(file: string, now: number): Promise<boolean> {
  try {
    await writeFile(file, `${new Date(now).toISOString()}\n`, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}
