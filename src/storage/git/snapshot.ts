import { randomUUID } from 'node:crypto';
import { access, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { heavyStream } from './heavy.ts';
import type { RepositoryAccess } from './reader.ts';
import { runTool, streamTool } from './tools.ts';

/** What a snapshot holds: refs first, objects last (see snapshotStream). */
const REF_ENTRIES = ['HEAD', 'config', 'packed-refs', 'refs'];
/** A file a concurrent gc removes between listing and linking makes the link fail: try again. */
const LINK_ATTEMPTS = 4;

/**
 * A streamed tar of the bare repository (GitLab's project snapshot): HEAD, config, refs and
 * objects, never buffered whole. A repository being written to still gives a consistent tar:
 * the refs are hard-linked into a staging directory first and the objects after them, and git
 * writes every object before the ref that names it, so each ref in the tar finds its objects
 * (stageSnapshot has the order within each).
 * Hard links (same file system, under the manager's temporary directory) cost no copy, and a
 * pack a concurrent gc removes stays readable through its link until the tar is written. The
 * staging directory is removed when the stream closes.
 */
export function snapshotStream(repository: RepositoryAccess, temporaryDirectory: string): Readable {
  return heavyStream(repository, 'snapshot', () => {
    const output = new PassThrough();
    const staging = path.join(temporaryDirectory, `snapshot-${randomUUID()}`);
    let tar: Readable | undefined;
    const staged = stageSnapshot(repository.gitDir, staging);
    output.on('close', () => {
      tar?.destroy();
      // Removed once linking has stopped: a client gone mid-staging leaves nothing behind.
      const remove = (): Promise<void> => rm(staging, { recursive: true, force: true });
      void staged.then(remove, remove).catch(() => undefined);
    });
    void (async () => {
      await staged;
      const entries = await presentEntries(staging);
      if (output.destroyed) return;
      // Ends only once tar exited 0: a failed tar destroys the answer, never ends it short.
      tar = streamTool(['tar', '-c', '-f', '-', '-C', staging, '--', ...entries]);
      tar.on('error', (error) => output.destroy(error));
      tar.pipe(output);
    })().catch((error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error))));
    return output;
  });
}

/**
 * Hard-links the refs, then the objects, into `staging`, in the order that a concurrent writer
 * or gc cannot defeat: loose refs before `packed-refs` (pack-refs writes the new file before it
 * deletes the loose refs it holds) and loose objects before packs (repack writes the new pack
 * before it prunes the loose objects and old packs it replaces). A file removed while `cp` lists
 * a directory fails that step, which is then linked again.
 */
async function stageSnapshot(gitDir: string, staging: string): Promise<void> {
  const objects = path.join(gitDir, 'objects');
  const stagedObjects = path.join(staging, 'objects');
  await mkdir(stagedObjects, { recursive: true });
  for (const names of [['HEAD', 'config'], ['refs'], ['packed-refs']]) {
    await linkStep(gitDir, () => existingEntries(gitDir, names), staging);
  }
  const loose = async (): Promise<string[]> => (await readdir(objects).catch(() => [] as string[])).filter((name) => name !== 'pack');
  await linkStep(objects, loose, stagedObjects);
  await linkStep(objects, () => existingEntries(objects, ['pack']), stagedObjects);
}

/** Links the entries of `from` into `into`, listed and linked again when a concurrent change fails it. */
async function linkStep(from: string, list: () => Promise<string[]>, into: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const entries = await list();
    if (entries.length === 0) return;
    try {
      await linkInto(from, entries, into);
      return;
    } catch (error) {
      if (attempt >= LINK_ATTEMPTS) throw error;
      await Promise.all(entries.map((entry) => rm(path.join(into, entry), { recursive: true, force: true })));
    }
  }
}

async function linkInto(from: string, entries: readonly string[], into: string): Promise<void> {
  const result = await runTool(['cp', '-a', '-l', '--', ...entries, into], { cwd: from });
  if (result.exitCode !== 0) throw new Error(`linking ${entries.join(', ')} for a snapshot failed: ${result.stderr.slice(0, 300)}`);
}

async function existingEntries(directory: string, names: readonly string[]): Promise<string[]> {
  const present = await Promise.all(names.map((name) => access(path.join(directory, name)).then(() => name, () => null)));
  return present.filter((name): name is string => name !== null);
}

function presentEntries(staging: string): Promise<string[]> {
  return existingEntries(staging, [...REF_ENTRIES, 'objects']);
}
