/**
 * What `runner exec` keeps in the working tree, under `.gantry/` (which ignores itself, so it
 * never reaches a snapshot or a commit): the runner's cache across runs (`.gantry/cache/`),
 * each finished job's artifacts (`.gantry/artifacts/<job>/`, replaced on every run of the job)
 * and the whole trace of each job of the last run (`.gantry/logs/<job>.log`).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { zipAsTar } from '../runner/job/archive/read-zip.ts';
import { extractInto } from '../executors/tar.ts';
import { removeTree } from '../shared/remove-tree.ts';
import type { LocalCoordinator } from './session.ts';

export interface LocalState {
  cacheDir: string;
  artifactsDir: string;
  logsDir: string;
  /** The runs of this tree going on now (superseding.ts). */
  runsDir: string;
}

export async function prepareLocalState(root: string): Promise<LocalState> {
  const base = path.join(root, '.gantry');
  await mkdir(base, { recursive: true });
  await writeIgnoreFile(base);
  // The logs are the last run's: a job that did not run this time has none.
  await rm(path.join(base, 'logs'), { recursive: true, force: true });
  return { cacheDir: path.join(base, 'cache'), artifactsDir: path.join(base, 'artifacts'), logsDir: path.join(base, 'logs'), runsDir: path.join(base, 'runs') };
}

/** Gives an existing `.gantry/` (one the user made for variables.yml) its `.gitignore`. */
export async function ignoreLocalState(root: string): Promise<void> {
  const base = path.join(root, '.gantry');
  const exists = await stat(base).then((found) => found.isDirectory(), () => false);
  if (exists) await writeIgnoreFile(base);
}

async function writeIgnoreFile(base: string): Promise<void> {
  await writeFile(path.join(base, '.gitignore'), '# Written by runner exec: nothing here belongs in git.\n*\n', { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
}

/** Bytes of a job's file name before its suffix (`.log`, `.<id>.log`): file systems take 255. */
const MAX_NAME_BYTES = 200;

/**
 * A job name as one directory name: path separators become `_`. A name longer than a file name
 * may be (a matrix job's values can make it one) is cut, and a digest of the whole name
 * appended, so that two long names sharing their start stay two names.
 */
export function jobDirectoryName(name: string): string {
  const flat = name.replace(/[/\\]/g, '_');
  if (flat === '.' || flat === '..') return `_${flat}`;
  if (Buffer.byteLength(flat) <= MAX_NAME_BYTES) return flat;
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 12);
  let kept = '';
  for (const character of flat) {
    if (Buffer.byteLength(kept + character) > MAX_NAME_BYTES - digest.length - 1) break;
    kept += character;
  }
  return `${kept}~${digest}`;
}

/** Archives unpacked at once: each is small work on a file, and a pipeline may have hundreds. */
const UNPACKING_AT_ONCE = 4;

/**
 * Unpacks each job's `archive` artifact into `<artifactsDir>/<job>/`, several jobs at once (jobs
 * of the same directory one after the other, the later one's kept); answers where, by job id.
 */
export async function copyArtifacts(local: LocalCoordinator, jobs: ReadonlyArray<{ id: number; name: string }>, artifactsDir: string): Promise<Map<number, string>> {
  const byDestination = new Map<string, Array<{ id: number; name: string }>>();
  for (const job of jobs) {
    const destination = path.join(artifactsDir, jobDirectoryName(job.name));
    byDestination.set(destination, [...(byDestination.get(destination) ?? []), job]);
  }
  const copied = new Map<number, string>();
  await eachAtMost(UNPACKING_AT_ONCE, [...byDestination], async ([destination, sharing]) => {
    for (const job of sharing) {
      const archive = await local.coordinator.context.stores.jobArtifacts.find(job.id, 'archive');
      if (!archive || archive.file_format !== 'zip') continue;
      await removeTree(destination);
      // A link comes back as a link, as the dependent jobs' copies have it (nothing is written through one).
      await extractInto(await zipAsTar(path.join(local.dataDir, archive.path)), destination, undefined, { anySymlinkTarget: true });
      copied.set(job.id, destination);
    }
  });
  return copied;
}

/** Runs `work` on every item, at most `limit` at a time; rejects with the first failure once none runs. */
async function eachAtMost<T>(limit: number, items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T);
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Streams each job's whole trace, as the coordinator stores it, to `<logsDir>/<job>.log`; answers where, by job id. */
export async function writeJobLogs(local: LocalCoordinator, jobs: ReadonlyArray<{ id: number; name: string }>, logsDir: string): Promise<Map<number, string>> {
  await mkdir(logsDir, { recursive: true });
  const written = new Map<number, string>();
  const used = new Set<string>();
  for (const job of jobs) {
    const trace = await local.ci.ciBlobs.traces.read(job.id);
    if (!trace) continue;
    // A child pipeline's job may bear a parent job's name: the later one gets its id too.
    let file = `${jobDirectoryName(job.name)}.log`;
    if (used.has(file)) file = `${jobDirectoryName(job.name)}.${job.id}.log`;
    used.add(file);
    const destination = path.join(logsDir, file);
    await pipeline(trace, createWriteStream(destination));
    written.set(job.id, destination);
  }
  return written;
}
