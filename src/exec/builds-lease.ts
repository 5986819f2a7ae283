/**
 * Where `runner exec`'s shell jobs are built, kept from one run to the next: under the
 * repository's git directory (`<git common dir>/gantry/builds/<n>/`), which no tool that walks
 * your tree looks into and which goes when the repository goes. A run holds its `<n>` alone
 * (`<n>.lock` names its process): runs of one repository at once each have their own. A lock
 * whose process is gone is taken over.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { processAlive } from '../shared/process-alive.ts';

export interface BuildsLease {
  dir: string;
  release(): Promise<void>;
}

/** More runs of one repository at once than this build in the run's temporary directory. */
const MOST_KEPT = 16;

/** The locks this process holds now: one of this process's that is not here was left by a run that failed to release it. */
const held = new Set<string>();

/** A builds directory under `base` of this run's own, or null when none can be had (no lock can be written there). */
export async function leaseBuildsDirectory(base: string): Promise<BuildsLease | null> {
  try {
    await mkdir(base, { recursive: true });
  } catch {
    return null;
  }
  const stamp = `${process.pid} ${randomBytes(6).toString('hex')}`;
  for (let slot = 0; slot < MOST_KEPT; slot += 1) {
    const lock = path.join(base, `${slot}.lock`);
    if (!(await takeLock(lock, stamp))) continue;
    held.add(stamp);
    return {
      dir: path.join(base, String(slot)),
      async release() {
        held.delete(stamp);
        await rm(lock, { force: true });
      },
    };
  }
  return null;
}

async function takeLock(lock: string, stamp: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await writeFile(lock, stamp, { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
    const holder = await readFile(lock, 'utf8').catch(() => null);
    // A lock being written (empty yet) or read away under us is someone's: the next slot.
    if (holder === null || holder === '' || !abandoned(holder)) return false;
    await rm(lock, { force: true });
  }
  return false;
}

function abandoned(holder: string): boolean {
  const pid = Number(holder.split(' ')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return true;
  if (pid === process.pid) return !held.has(holder);
  return !processAlive(pid);
}

/**
 * The run's kept builds directory for the repository whose object database is `objects`
 * (`<git dir>/objects`, lent to the local project), or null without one (builds then go in the
 * run's temporary directory, as they do for a database elsewhere: GIT_OBJECT_DIRECTORY).
 */
export function leaseKeptBuilds(objects: string | null): Promise<BuildsLease | null> {
  if (objects === null || path.basename(objects) !== 'objects') return Promise.resolve(null);
  return leaseBuildsDirectory(path.join(path.dirname(objects), 'gantry', 'builds'));
}
