import type { Readable } from 'node:stream';
import { refuseDangerousPaths } from './content.ts';
import { DIFF_LIMITS, type DiffLimits } from './diff-limits.ts';
import { DiffLimiter } from './diff-limiter.ts';
import { PatchScanner, RawSectionReader, type RawDiffEntry, type ScannedPatch } from './diff-output.ts';
import { reportContentError } from './heavy.ts';
import type { RepositoryAccess } from './reader.ts';
import { GitCommandError, streamGit } from './run.ts';
import type { GitCommitStats, GitDiffOptions, GitDiffStream, GitFileDiff } from './types.ts';
import type { WorkSlot } from './work-queue.ts';

/** Arguments of a diff GitLab-style: renames detected, no colour, no external tools. */
export const DIFF_OPTIONS = ['--no-color', '--no-ext-diff', '--no-textconv', '-M', '--full-index'] as const;

export interface OpenDiffOptions extends GitDiffOptions {
  /** The work slot git runs in: released when git has gone (or opening failed). */
  slot: WorkSlot;
  limits?: Readonly<DiffLimits>;
}

/** A diff of no files (a commit that does not exist). */
export function emptyDiff(): GitDiffStream {
  return {
    overflow: false,
    close: () => undefined,
    async *[Symbol.asyncIterator]() {
      // No files.
    },
  };
}

/**
 * Starts `git diff --raw -p -z from to` and reads its raw section (every file's modes and
 * paths, each path checked: one no checkout may create is a GitContentError) before
 * answering; the patches are read as the answer is iterated. The client's signal kills git.
 */
export async function openDiff(access: RepositoryAccess, from: string, to: string, options: OpenDiffOptions): Promise<GitDiffStream> {
  const limits = options.limits ?? DIFF_LIMITS;
  const source = streamGit(access.gitDir, ['diff', '--raw', '-p', '-z', ...DIFF_OPTIONS, from, to], { lowPriority: true, signal: access.client?.signal });
  source.once('close', () => options.slot.release());
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const listing: FileListing = { entries: [], count: 0 };
  const raw = new RawSectionReader((entry) => {
    refuseDangerousPaths([entry.oldPath, entry.newPath]);
    listing.count += 1;
    // A file past the count limit is never shown: the diff overflows before it.
    if (listing.entries.length <= limits.maxFiles) listing.entries.push(entry);
  });
  let scanned = 0;
  try {
    for (;;) {
      const step = await chunks.next();
      if (step.done) return new LimitedDiff(access, source, chunks, listing, { leftover: EMPTY, scanned, limits, expanded: options.expanded });
      scanned += step.value.length;
      const patchStart = raw.push(step.value);
      if (patchStart !== null) return new LimitedDiff(access, source, chunks, listing, { leftover: step.value.subarray(patchStart), scanned, limits, expanded: options.expanded });
      if (scanned > limits.maxScannedBytes) return new LimitedDiff(access, source, chunks, listing, { leftover: EMPTY, scanned, limits, expanded: options.expanded, overflowed: true, rawComplete: false });
    }
  } catch (error) {
    source.destroy();
    options.slot.release();
    throw error;
  }
}

interface FileListing {
  /** The first files (one past the count limit at most). */
  entries: RawDiffEntry[];
  /** Files in all. */
  count: number;
}

interface ReadState {
  /** Patch bytes that came with the end of the raw section. */
  leftover: Buffer;
  /** Bytes of git output read so far. */
  scanned: number;
  limits: Readonly<DiffLimits>;
  expanded: boolean;
  /** Stopped already (the raw section alone passed the read ceiling). */
  overflowed?: boolean;
  /** False when the raw section was not read to its end. */
  rawComplete?: boolean;
}

const EMPTY = Buffer.alloc(0);
const NO_PATCH: ScannedPatch = { body: EMPTY, patchBytes: 0, contentLines: 0, contentBytes: 0 };

/** The patches of an opened diff, under the limits, read as they are iterated. */
class LimitedDiff implements GitDiffStream {
  private overflowed: boolean;
  private started = false;

  constructor(
    private readonly access: RepositoryAccess,
    private readonly source: Readable,
    private readonly chunks: AsyncIterator<Buffer>,
    private readonly listing: FileListing,
    private readonly state: ReadState,
  ) {
    this.overflowed = state.overflowed === true;
  }

  get overflow(): boolean {
    return this.overflowed;
  }

  get fileCount(): number | undefined {
    return this.state.rawComplete === false ? undefined : this.listing.count;
  }

  close(): void {
    this.source.destroy();
  }

  [Symbol.asyncIterator](): AsyncIterator<GitFileDiff> {
    if (this.started) throw new Error('a diff stream is read once');
    this.started = true;
    return this.files();
  }

  private async *files(): AsyncGenerator<GitFileDiff> {
    const { limits, expanded } = this.state;
    const limiter = new DiffLimiter(limits, { expanded, files: this.listing.count });
    const scanner = new PatchScanner(limits.maxPatchBytes);
    let next = 0;
    /** The file as answered; null when the diff stops before it. */
    const admit = (patch: ScannedPatch): GitFileDiff | null => {
      const entry = this.listing.entries[next];
      if (entry === undefined) throw new GitCommandError(['diff'], 0, 'git printed more patches than files');
      next += 1;
      const file = limiter.admit(entry, patch);
      if (file === null) this.overflowed = true;
      return file;
    };
    /** Whether the next file is certain to pass the count limit. */
    const countReached = (): boolean => limiter.full && this.listing.count > limits.maxFiles;
    try {
      if (this.overflowed) return;
      let chunk: Buffer | null = this.state.leftover;
      while (chunk !== null) {
        // Only the bytes within the ceiling are scanned, so where the diff stops does not depend
        // on how git's output happened to be chunked.
        const beyond = this.state.scanned - limits.maxScannedBytes;
        if (beyond > 0) chunk = chunk.subarray(0, Math.max(0, chunk.length - beyond));
        for (const patch of scanner.push(chunk)) {
          const file = admit(patch);
          if (file === null) return;
          yield file;
          if (countReached()) {
            this.overflowed = true;
            return;
          }
        }
        if (this.state.scanned > limits.maxScannedBytes) {
          this.overflowed = true;
          return;
        }
        const step = await this.chunks.next();
        chunk = step.done ? null : step.value;
        if (chunk) this.state.scanned += chunk.length;
      }
      const last = scanner.finish();
      // Files git printed no patch for (none are expected) are answered without one.
      const unprinted = Math.min(this.listing.count, this.listing.entries.length) - next - last.length;
      for (let missing = 0; missing < unprinted; missing += 1) last.push(NO_PATCH);
      for (const patch of last) {
        const file = admit(patch);
        if (file === null) return;
        yield file;
        if (countReached()) {
          this.overflowed = true;
          return;
        }
      }
    } catch (error) {
      reportContentError(this.access, 'diff', error);
      throw error;
    } finally {
      this.close();
    }
  }
}

/** Sums `git diff --numstat -z` as git writes it (binary files count as 0). */
export async function sumNumstat(source: Readable): Promise<GitCommitStats> {
  let additions = 0;
  let deletions = 0;
  const count = (record: string): void => {
    const match = /^(\d+|-)\t(\d+|-)\t/.exec(record);
    if (!match) return;
    additions += match[1] === '-' ? 0 : Number(match[1]);
    deletions += match[2] === '-' ? 0 : Number(match[2]);
  };
  // Only a record's start matters: the counts, never more than a few dozen bytes.
  const KEPT = 64;
  let record = '';
  for await (const chunk of source as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(0, start); end >= 0; end = chunk.indexOf(0, start)) {
      if (record.length < KEPT) record += chunk.toString('latin1', start, Math.min(end, start + KEPT));
      count(record);
      record = '';
      start = end + 1;
    }
    if (record.length < KEPT) record += chunk.toString('latin1', start, Math.min(chunk.length, start + KEPT));
  }
  if (record !== '') count(record);
  return { additions, deletions, total: additions + deletions };
}
