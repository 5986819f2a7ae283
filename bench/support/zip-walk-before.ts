/**
 * The member look-up as it was before the member index (src/storage/fs/zip-members.ts at
 * e094bf2), kept for bench/artifact-members.ts to measure against in the same run: a walk of
 * the central directory up to the member, each entry checked against every earlier one for a
 * repeated name. Unchanged but for `cpuBudgetMs`: past it the walk stops and reports so.
 */
import type { Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import type { ZipMember as CurrentZipMember } from '../../src/storage/types-blobs.ts';

/** The member as it was described then (no location). */
type ZipMember = Omit<CurrentZipMember, 'headerOffset' | 'compression'>;

/** CPU time (user + system) of this process so far, in milliseconds. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

const UNIX = 3;
const FILE_TYPE_MASK = 0o170000;
const SYMLINK = 0o120000;

/** Streams one safe file member (inflated on the way); undefined when absent or unsafe. */
export async function openZipMember(file: string, memberPath: string, cpuBudgetMs = Infinity): Promise<{ stream: Readable; size: number } | undefined | 'over budget'> {
  if (unsafeName(memberPath)) return undefined;
  let found: { zipfile: ZipFile; entry: Entry } | undefined;
  let overBudget = false;
  const deadline = cpuMs() + cpuBudgetMs;
  const seen: ZipMember[] = [];
  await walk(file, (entry, zipfile) => {
    if (seen.length % 1000 === 0 && cpuMs() > deadline) {
      overBudget = true;
      zipfile.close();
      return true;
    }
    const member = describe(entry, seen);
    seen.push(member);
    if (member.path !== memberPath) return false;
    if (member.kind === 'file') found = { zipfile, entry };
    return true;
  });
  if (overBudget) return 'over budget';
  if (!found) return undefined;
  const { zipfile, entry } = found;
  try {
    const stream = await zipfile.openReadStreamPromise(entry);
    return { stream, size: entry.uncompressedSize };
  } finally {
    // yauzl keeps the file open until the member stream ends.
    zipfile.close();
  }
}

/**
 * Visits entries until `visit` answers true (then the zip stays open for the caller, who
 * closes it) or the central directory ends (then it is closed here).
 */
async function walk(file: string, visit: (entry: Entry, zipfile: ZipFile) => boolean): Promise<void> {
  const zipfile = await yauzl.openPromise(file, { lazyEntries: true, decodeStrings: false, autoClose: false, validateEntrySizes: true });
  let keepOpen = false;
  try {
    await new Promise<void>((resolve, reject) => {
      zipfile.on('error', reject);
      zipfile.on('end', () => resolve());
      zipfile.on('entry', (entry: Entry) => {
        if (visit(entry, zipfile)) {
          keepOpen = true;
          resolve();
        } else {
          zipfile.readEntry();
        }
      });
      zipfile.readEntry();
    });
  } finally {
    if (!keepOpen) zipfile.close();
  }
}

function describe(entry: Entry, earlier: readonly ZipMember[]): ZipMember {
  const path = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
  const madeOnUnix = entry.versionMadeBy >> 8 === UNIX;
  const mode = madeOnUnix ? (entry.externalFileAttributes >>> 16) & 0xffff : 0;
  const symlink = madeOnUnix && (mode & FILE_TYPE_MASK) === SYMLINK;
  const unreadable = entry.isEncrypted() || (entry.compressionMethod !== 0 && entry.compressionMethod !== 8);
  const repeated = earlier.some((member) => member.path === path);
  const kind = unsafeName(path) || symlink || unreadable || repeated ? 'unsafe' : path.endsWith('/') ? 'directory' : 'file';
  const modified = entry.getLastModDate();
  return {
    path,
    kind,
    size: entry.uncompressedSize,
    compressedSize: entry.compressedSize,
    crc32: entry.crc32 >>> 0,
    mode,
    modifiedAt: Number.isNaN(modified.getTime()) ? null : modified.toISOString(),
  };
}

/** Absolute (`/x`, `C:x`), `..` segments, backslashes, NUL, or empty. */
function unsafeName(path: string): boolean {
  return path === '' || path.includes('\0') || yauzl.validateFileName(path) !== null;
}
