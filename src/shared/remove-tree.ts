/**
 * `rm -rf` that also removes what a job made read-only (`chmod -R a-w dir`): a directory
 * without its owner's write bit keeps its entries from anyone but root, so on a permission
 * error the tree's directories are given back `u+rwx` and the removal is tried once more.
 * The removal is made of synchronous calls (a few microseconds each: through the thread pool,
 * as `fs.rm` makes them, each cost this thread several times that and waited its turn, and a
 * job's build directory is hundreds of them), the event loop given its turns (LoopTurns), so a
 * tree of any size never holds it long.
 */
import { lstatSync, opendirSync, rmdirSync, unlinkSync, type Dirent } from 'node:fs';
import { chmod, lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { LoopTurns } from './loop-turns.ts';

/** Entries of a directory read at once. */
const BATCH = 256;

/** `target` as text or, for a name that is not UTF-8, as the bytes of its path. */
export async function removeTree(target: string | Buffer, turns = new LoopTurns()): Promise<void> {
  try {
    await removeInTurns(target, turns);
  } catch (error) {
    if (!isPermissionError(error)) throw error;
    await unlockDirectories(target);
    await removeInTurns(target, turns);
  }
}

async function removeInTurns(target: string | Buffer, turns: LoopTurns): Promise<void> {
  const found = ignoringMissing(() => lstatSync(target));
  if (!found) return;
  if (!found.isDirectory()) return void ignoringMissing(() => unlinkSync(target));
  await removeDirectory(typeof target === 'string' ? Buffer.from(target) : target, turns);
}

/**
 * Empties `directory` a batch of entries at a time (each batch read afresh: what was removed
 * is no longer listed), then removes it. A batch, not the whole listing: a directory of a
 * million entries is not read at once. Names are bytes: one that is not UTF-8 is removed by
 * the name it has, not by a decoding of it that names nothing.
 */
async function removeDirectory(directory: Buffer, turns: LoopTurns): Promise<void> {
  for (;;) {
    const batch = ignoringMissing(() => readBatch(directory)) ?? [];
    if (batch.length === 0) break;
    let removed = 0;
    for (const entry of batch) {
      await turns.pause();
      const child = Buffer.concat([directory, SEPARATOR, entry.name]);
      if (entry.isDirectory()) await removeDirectory(child, turns);
      else if (ignoringMissing(() => (unlinkSync(child), true)) === undefined) continue;
      removed += 1;
    }
    // A batch of names that name nothing would be read again and again: rmdir says what is left.
    if (removed === 0) break;
  }
  ignoringMissing(() => rmdirSync(directory));
}

const SEPARATOR = Buffer.from(path.sep);

/** `opendirSync` gives names as bytes when asked (its types know only text encodings). */
const NAMES_AS_BYTES = { encoding: 'buffer' as BufferEncoding, bufferSize: BATCH };

function readBatch(directory: Buffer): Array<Dirent<Buffer>> {
  const handle = opendirSync(directory, NAMES_AS_BYTES);
  try {
    const batch: Array<Dirent<Buffer>> = [];
    while (batch.length < BATCH) {
      const entry = handle.readSync() as unknown as Dirent<Buffer> | null;
      if (entry === null) break;
      batch.push(entry);
    }
    return batch;
  } finally {
    handle.closeSync();
  }
}

/** The call's answer, or undefined when what it names is not there (`rm -f`). */
function ignoringMissing<T>(call: () => T): T | undefined {
  try {
    return call();
  } catch (error) {
    if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') return undefined;
    throw error;
  }
}

function isPermissionError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'EACCES' || code === 'EPERM';
}

/** Gives every directory of the tree (symlinks not followed) its owner's read, write and search bits. */
async function unlockDirectories(directory: string | Buffer): Promise<void> {
  const found = await lstat(directory).catch(() => null);
  if (!found?.isDirectory()) return;
  if ((found.mode & 0o700) !== 0o700) await chmod(directory, (found.mode & 0o7777) | 0o700).catch(() => undefined);
  const entries = await readdir(directory, { withFileTypes: true, encoding: 'buffer' }).catch(() => []);
  const parent = typeof directory === 'string' ? Buffer.from(directory) : directory;
  for (const entry of entries) {
    if (entry.isDirectory()) await unlockDirectories(Buffer.concat([parent, SEPARATOR, entry.name]));
  }
}
