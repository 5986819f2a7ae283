/**
 * A zip file (dependency artifacts, cache) as a tar stream for Environment.copyIn, refusing
 * absolute paths and `..` (yauzl checks names too). A symlink passes whatever its target, as
 * gitlab-runner's extractor keeps it: the unpacker writes nothing through one that leaves
 * its destination.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { inflateRawSync } from 'node:zlib';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { SMALL_FILE } from '../../../executors/tar.ts';
import { LoopTurns } from '../../../shared/loop-turns.ts';
import { safeRelativeName } from '../../../shared/safe-path.ts';

export class UnsafeZipEntryError extends Error {
  constructor(name: string, reason: string) {
    super(`refusing archive entry "${name}": ${reason}`);
    this.name = 'UnsafeZipEntryError';
  }
}

/**
 * yauzl's reads of the archive as synchronous calls, each of at most SMALL_FILE bytes, instead
 * of through the thread pool: a zip of thousands of small members cost several round trips
 * through the pool for each (its directory entry, its local header, its data), most of the
 * time spent unpacking it. Callbacks still come on a later tick, as yauzl expects, and the
 * event loop gets its turns (LoopTurns).
 */
class SyncFileReader extends yauzl.RandomAccessReader {
  constructor(
    private readonly fd: number,
    private readonly turns: LoopTurns,
  ) {
    super();
  }

  /** Up to `length` bytes at `position` into `buffer`; fewer only at the end of the file. */
  readAt(buffer: Buffer, offset: number, length: number, position: number): number {
    let filled = 0;
    while (filled < length) {
      const read = readSync(this.fd, buffer, offset + filled, length - filled, position + filled);
      if (read === 0) break;
      filled += read;
    }
    return filled;
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (error: Error | null) => void): void {
    const failure = attempt(() => {
      if (this.readAt(buffer, offset, length, position) < length) throw new Error('unexpected EOF');
    });
    // Every member takes reads: the walk of a large zip gives the event loop its turns here.
    const turn = this.turns.pause();
    if (turn) void turn.then(() => callback(failure));
    else process.nextTick(callback, failure);
  }

  override _readStreamForRange(start: number, end: number): Readable {
    let position = start;
    const stream: Readable = new Readable({
      read: () => {
        const wanted = Math.min(SMALL_FILE, end - position);
        if (wanted <= 0) return void stream.push(null);
        const chunk = Buffer.allocUnsafe(wanted);
        const failure = attempt(() => {
          const read = this.readAt(chunk, 0, wanted, position);
          position += read;
          stream.push(read === 0 ? null : chunk.subarray(0, read));
        });
        if (failure) stream.destroy(failure);
      },
    });
    return stream;
  }

  override close(callback: (error: Error | null) => void): void {
    process.nextTick(callback, attempt(() => closeSync(this.fd)));
  }
}

const attempt = (work: () => void): Error | null => {
  try {
    work();
    return null;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
};

async function openZip(file: string, turns: LoopTurns): Promise<{ zip: yauzl.ZipFile; reader: SyncFileReader }> {
  const fd = openSync(file, 'r');
  const reader = new SyncFileReader(fd, turns);
  let size: number;
  try {
    size = fstatSync(fd).size;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromRandomAccessReader(reader, size, { lazyEntries: true, autoClose: true, validateEntrySizes: true, strictFileNames: false }, (error, opened) => (error ? reject(error) : resolve(opened))),
  ).catch((error: unknown) => {
    reader.close(() => undefined);
    throw error;
  });
  return { zip, reader };
}

function localDataStart(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<number> {
  return new Promise((resolve, reject) => zip.readLocalFileHeader(entry, { minimal: true }, (error, header) => (error ? reject(error) : resolve(header.fileDataStart))));
}

/**
 * A small member's bytes in one synchronous read and inflate, held to its declared size as
 * yauzl's streams hold it (`validateEntrySizes`). Null for any other member: larger, encrypted,
 * or neither stored nor deflated (yauzl's stream then reads it, or refuses it).
 */
async function readSmallMember(zip: yauzl.ZipFile, reader: SyncFileReader, entry: yauzl.Entry): Promise<Buffer | null> {
  const plain = entry.compressionMethod === 0 || entry.compressionMethod === 8;
  if (!plain || entry.isEncrypted() || entry.uncompressedSize > SMALL_FILE || entry.compressedSize > SMALL_FILE) return null;
  const start = await localDataStart(zip, entry);
  const raw = Buffer.allocUnsafe(entry.compressedSize);
  if (reader.readAt(raw, 0, raw.length, start) < raw.length) throw new Error('unexpected EOF');
  const data = entry.compressionMethod === 0 ? raw : inflateMember(raw, entry.uncompressedSize);
  if (data.length > entry.uncompressedSize) throw new Error(`too many bytes in the stream. expected ${entry.uncompressedSize}. got at least ${data.length}`);
  if (data.length < entry.uncompressedSize) throw new Error(`not enough bytes in the stream. expected ${entry.uncompressedSize}. got only ${data.length}`);
  return data;
}

/** The member inflated, refused once it holds more than it declared (never more than one byte past that is made). */
function inflateMember(raw: Buffer, declared: number): Buffer {
  try {
    return inflateRawSync(raw, { maxOutputLength: declared + 1 });
  } catch (error) {
    if (error instanceof RangeError) throw new Error(`too many bytes in the stream. expected ${declared}. got at least ${declared + 1}`);
    throw error;
  }
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) => zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream))));
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Streams the zip's entries as tar entries; the returned stream errors on the first unsafe entry. */
export async function zipAsTar(file: string, turns = new LoopTurns()): Promise<Readable> {
  const { zip, reader } = await openZip(file, turns);
  const pack = tar.pack();
  const out = new PassThrough();
  // Errors reach the consumer through `errored`/'error'; without a listener yet they must not crash the process.
  out.on('error', () => undefined);
  pack.pipe(out);
  let failed = false;
  const fail = (error: unknown): void => {
    if (failed) return;
    failed = true;
    if (zip.isOpen) zip.close();
    pack.destroy();
    out.destroy(error instanceof Error ? error : new Error(String(error)));
  };
  pack.on('error', fail);
  zip.on('error', fail);
  zip.on('end', () => pack.finalize());
  zip.on('entry', (entry: yauzl.Entry) => {
    (async () => {
      const name = safeRelativeName(entry.fileName);
      if (name === null) throw new UnsafeZipEntryError(entry.fileName, 'the path leaves the destination');
      const mode = (entry.externalFileAttributes >>> 16) & 0xffff;
      const kind = mode & 0o170000;
      const mtime = entry.getLastModDate();
      const directory = entry.fileName.endsWith('/') || kind === 0o040000;
      const small = directory || kind === 0o120000 ? null : await readSmallMember(zip, reader, entry);
      if (directory) {
        if (name !== '') await addEntry(pack, { name: `${name}/`, type: 'directory', mode: mode & 0o7777 || 0o755, mtime });
      } else if (kind === 0o120000) {
        // No system takes a link target that long (PATH_MAX is 4,096): nothing that size is held.
        if (entry.uncompressedSize > SMALL_FILE) throw new UnsafeZipEntryError(entry.fileName, 'the symlink target is too long');
        const target = ((await readSmallMember(zip, reader, entry)) ?? (await readAll(await openEntry(zip, entry)))).toString('utf8');
        if (target.includes('\0')) throw new UnsafeZipEntryError(entry.fileName, 'the symlink target holds a NUL byte');
        await addEntry(pack, { name, type: 'symlink', linkname: target, mode: 0o777, mtime });
      } else if (small !== null) {
        await addEntry(pack, { name, type: 'file', size: small.length, mode: mode & 0o7777 || 0o644, mtime }, small);
      } else {
        const source = await openEntry(zip, entry);
        await new Promise<void>((resolve, reject) => {
          const sink = pack.entry({ name, type: 'file', size: entry.uncompressedSize, mode: mode & 0o7777 || 0o644, mtime }, (error) => (error ? reject(error) : resolve()));
          sink.on('error', reject);
          source.on('error', reject);
          source.pipe(sink as unknown as NodeJS.WritableStream);
        });
      }
      zip.readEntry();
    })().catch(fail);
  });
  zip.readEntry();
  return out;
}

function addEntry(pack: tar.Pack, header: Parameters<tar.Pack['entry']>[0], data?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error | null) => (error ? reject(error) : resolve());
    // Destroyed with the pack, the entry errors: the callback hears it, no unhandled 'error' event.
    const sink = data === undefined ? pack.entry(header, done) : pack.entry(header, data, done);
    sink.on('error', () => undefined);
  });
}
