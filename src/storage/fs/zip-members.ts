import { close as closeCallback, fstat as fstatCallback, open as openCallback } from 'node:fs';
import { promisify } from 'node:util';
import { addAbortSignal, type Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { ZipIndexLimitError, type ZipIndexLimits, type ZipMember, type ZipMemberLocation } from '../types-blobs.ts';
import { WindowedFileReader } from './zip-reader.ts';

const UNIX = 3;
const FILE_TYPE_MASK = 0o170000;
const SYMLINK = 0o120000;
/** A central directory record before its variable fields. */
const RECORD_BYTES = 46;
const STORED = 0;
const DEFLATED = 8;

const openFd = promisify(openCallback);
const fstat = promisify(fstatCallback);
const closeFd = promisify(closeCallback);

/**
 * Reads a zip's central directory with yauzl, once, in linear time: the member count is
 * checked before the first record is read, the bytes of records as they are read. Names are
 * decoded here (not by yauzl, which would reject the whole archive at the first bad name) so
 * each member is judged on its own: absolute paths, `..` segments, backslashes, NUL,
 * symlinks, encrypted or unsupported members, and every member of a name that occurs more
 * than once, are `unsafe`, never served.
 */
export async function listZipMembers(file: string, options: { limits: ZipIndexLimits; signal?: AbortSignal }): Promise<ZipMember[]> {
  const { limits, signal } = options;
  signal?.throwIfAborted();
  const fd = await openFd(file, 'r');
  let zipfile: ZipFile;
  try {
    const { size } = await fstat(fd);
    // From here the reader owns the descriptor: closing the zip closes it.
    zipfile = await yauzl.fromRandomAccessReaderPromise(new WindowedFileReader(fd), size, {
      lazyEntries: true, decodeStrings: false, autoClose: false, validateEntrySizes: true,
    });
  } catch (error) {
    await closeFd(fd);
    throw error;
  }
  try {
    if (zipfile.entryCount > limits.maxMembers) throw new ZipIndexLimitError('members', limits.maxMembers);
    const members: ZipMember[] = [];
    const firstOfName = new Map<string, ZipMember>();
    let directoryBytes = 0;
    for await (const entry of zipfile.eachEntry()) {
      signal?.throwIfAborted();
      directoryBytes += RECORD_BYTES + entry.fileNameLength + entry.extraFieldLength + entry.fileCommentLength;
      if (directoryBytes > limits.maxDirectoryBytes) throw new ZipIndexLimitError('directory bytes', limits.maxDirectoryBytes);
      const member = describe(entry);
      const first = firstOfName.get(member.path);
      if (first === undefined) {
        firstOfName.set(member.path, member);
      } else {
        first.kind = 'unsafe';
        member.kind = 'unsafe';
      }
      members.push(member);
    }
    return members;
  } finally {
    zipfile.close();
  }
}

/**
 * Streams the member at `location`: its local header is read for where the data starts, then
 * the data is inflated (deflated members) and counted (yauzl checks the size). No other part
 * of the archive is read.
 */
export async function openZipMember(file: string, location: ZipMemberLocation, options: { signal?: AbortSignal } = {}): Promise<{ stream: Readable; size: number }> {
  const { signal } = options;
  signal?.throwIfAborted();
  const zipfile = await yauzl.openPromise(file, { lazyEntries: true, decodeStrings: false, autoClose: false, validateEntrySizes: true });
  try {
    const stream = await zipfile.openReadStreamPromise(entryAt(location));
    return { stream: signal ? addAbortSignal(signal, stream) : stream, size: location.size };
  } finally {
    // yauzl keeps the file open until the member stream ends or is destroyed.
    zipfile.close();
  }
}

/** What yauzl reads of an entry to open it, rebuilt from a recorded location. */
function entryAt(location: ZipMemberLocation): Entry {
  if (location.compression !== STORED && location.compression !== DEFLATED) throw new Error(`unsupported compression method ${location.compression}`);
  return Object.assign(new yauzl.Entry(), {
    relativeOffsetOfLocalHeader: location.headerOffset,
    compressionMethod: location.compression,
    compressedSize: location.compressedSize,
    uncompressedSize: location.size,
    generalPurposeBitFlag: 0,
  });
}

function describe(entry: Entry): ZipMember {
  const path = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
  const madeOnUnix = entry.versionMadeBy >> 8 === UNIX;
  const mode = madeOnUnix ? (entry.externalFileAttributes >>> 16) & 0xffff : 0;
  const symlink = madeOnUnix && (mode & FILE_TYPE_MASK) === SYMLINK;
  const unreadable = entry.isEncrypted() || (entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATED);
  const kind = unsafeName(path) || symlink || unreadable ? 'unsafe' : path.endsWith('/') ? 'directory' : 'file';
  const modified = entry.getLastModDate();
  return {
    path,
    kind,
    size: entry.uncompressedSize,
    compressedSize: entry.compressedSize,
    crc32: entry.crc32 >>> 0,
    mode,
    modifiedAt: Number.isNaN(modified.getTime()) ? null : modified.toISOString(),
    headerOffset: entry.relativeOffsetOfLocalHeader,
    compression: entry.compressionMethod,
  };
}

/** Absolute (`/x`, `C:x`), `..` segments, backslashes, NUL, or empty. */
function unsafeName(path: string): boolean {
  return path === '' || path.includes('\0') || yauzl.validateFileName(path) !== null;
}
