/**
 * What `runner exec` keeps in the working tree, under `.gantry/` (which ignores itself, so it
 * never reaches a snapshot or a commit): the runner's cache across runs (`.gantry/cache/`),
 * each finished job's artifacts (`.gantry/artifacts/<job>/`, replaced on every run of the job)
 * and the whole trace of each job of the last run (`.gantry/logs/<job>.log`).
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { zipAsTar } from '../runner/job/archive/read-zip.ts';
import { extractInto } from '../executors/tar.ts';
import type { LocalCoordinator } from './session.ts';

export interface LocalState {
  cacheDir: string;
  artifactsDir: string;
  logsDir: string;
}

export async function prepareLocalState(root: string): Promise<LocalState> {
  const base = path.join(root, '.gantry');
  await mkdir(base, { recursive: true });
  await writeIgnoreFile(base);
  // The logs are the last run's: a job that did not run this time has none.
  await rm(path.join(base, 'logs'), { recursive: true, force: true });
  return { cacheDir: path.join(base, 'cache'), artifactsDir: path.join(base, 'artifacts'), logsDir: path.join(base, 'logs') };
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

/** A job name as one directory name: path separators become `_`. */
export function jobDirectoryName(name: string): string {
  const flat = name.replace(/[/\\]/g, '_');
  return flat === '.' || flat === '..' ? `_${flat}` : flat;
}

/** Unpacks each job's `archive` artifact into `<artifactsDir>/<job>/`; answers where, by job id. */
export async function copyArtifacts(local: LocalCoordinator, jobs: ReadonlyArray<{ id: number; name: string }>, artifactsDir: string): Promise<Map<number, string>> {
  const copied = new Map<number, string>();
  for (const job of jobs) {
    const archive = await local.coordinator.context.stores.jobArtifacts.find(job.id, 'archive');
    if (!archive || archive.file_format !== 'zip') continue;
    const destination = path.join(artifactsDir, jobDirectoryName(job.name));
    await rm(destination, { recursive: true, force: true });
    await extractInto(await zipAsTar(path.join(local.dataDir, archive.path)), destination);
    copied.set(job.id, destination);
  }
  return copied;
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
