import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { runGit } from './run.ts';

/**
 * Environment for git processes that handle thousands of entries (fast-import, index
 * operations): glibc returns freed heap to the system after nearly every object otherwise,
 * and where `brk` is slow (virtual machines) that made fast-import of 10,000 small blobs take
 * 15 s instead of 0.1 s. Short-lived processes only: they exit soon after.
 */
export const BULK_GIT_ENVIRONMENT: Readonly<Record<string, string>> = { MALLOC_TRIM_THRESHOLD_: String(128 * 1024 * 1024) };

/** git's id of a blob: SHA-1 of `blob <size>\0` and the bytes. */
export function blobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/**
 * The new blobs of one commit: ids computed here (so every action is checked before git
 * writes anything), then all written by one `git fast-import`, however many there are.
 * fast-import keeps them in one pack, or as loose objects below `fastimport.unpackLimit` (100).
 */
export class BlobBatch {
  private readonly blobs = new Map<string, Buffer>();

  add(content: Buffer): string {
    const id = blobId(content);
    this.blobs.set(id, content);
    return id;
  }

  /** Writes the blobs; `scratch` is a private directory for fast-import's list of marks. */
  async write(gitDir: string, scratch: string, signal?: AbortSignal): Promise<void> {
    if (this.blobs.size === 0) return;
    const ids = [...this.blobs.keys()];
    const marks = path.join(scratch, 'marks');
    await runGit(gitDir, ['fast-import', '--quiet', '--done', `--export-marks=${marks}`], {
      input: Readable.from(this.commands(ids)),
      env: { ...BULK_GIT_ENVIRONMENT },
      signal,
    });
    // git must agree with the ids the index will name (":<mark> <id>" per line).
    const written = new Map((await readFile(marks, 'utf8')).split('\n').filter(Boolean).map((line) => [line.slice(1, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)]));
    if (written.size !== ids.length || ids.some((id, index) => written.get(String(index + 1)) !== id)) {
      throw new Error(`git fast-import stored ${written.size} blobs with other ids than the ${ids.length} expected`);
    }
  }

  /** The fast-import stream in chunks of about a megabyte (not one write per blob). */
  private *commands(ids: readonly string[]): Generator<Buffer> {
    let pending: Buffer[] = [];
    let size = 0;
    for (const [index, id] of ids.entries()) {
      const content = this.blobs.get(id)!;
      const header = Buffer.from(`blob\nmark :${index + 1}\ndata ${content.length}\n`);
      pending.push(header, content, NEWLINE);
      size += header.length + content.length + 1;
      if (size >= CHUNK_BYTES) {
        yield Buffer.concat(pending);
        pending = [];
        size = 0;
      }
    }
    pending.push(Buffer.from('done\n'));
    yield Buffer.concat(pending);
  }
}

const NEWLINE = Buffer.from('\n');
const CHUNK_BYTES = 1024 * 1024;
