/**
 * Archives of a staged directory, in the formats GitLab takes (reference §6.1): zip (yazl,
 * Unix modes and symlinks kept), gzip (one member per file, its name in the header), raw
 * (exactly one file). Written to a file, never held whole in memory.
 */
import CRC32 from 'crc-32';
import { createReadStream, createWriteStream, lstatSync, readlinkSync } from 'node:fs';
import { copyFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import yazl from 'yazl';
import { readSmallFile, SMALL_FILE } from '../../../executors/tar.ts';
import { LoopTurns } from '../../../shared/loop-turns.ts';

export interface StagedEntry {
  name: string;
  absolute: string;
  type: 'file' | 'directory' | 'symlink';
  mode: number;
  mtime: Date;
  /** The file's size when staged (0 for the others). */
  size: number;
}

/**
 * Everything below `root`, sorted, directories before their contents. Each entry's metadata is
 * read synchronously (a few microseconds on the job's disk; executors/tar.ts says why).
 */
export async function stagedEntries(root: string): Promise<StagedEntry[]> {
  const out: StagedEntry[] = [];
  const turns = new LoopTurns();
  const walk = async (relative: string): Promise<void> => {
    const names = (await readdir(path.join(root, relative)).catch(() => [] as string[])).sort();
    for (const name of names) {
      await turns.pause();
      const entryName = relative ? `${relative}/${name}` : name;
      const absolute = path.join(root, entryName);
      const stat = lstatSync(absolute);
      const type = stat.isDirectory() ? 'directory' : stat.isSymbolicLink() ? 'symlink' : stat.isFile() ? 'file' : null;
      if (!type) continue;
      out.push({ name: entryName, absolute, type, mode: stat.mode & 0o7777, mtime: stat.mtime, size: type === 'file' ? stat.size : 0 });
      if (type === 'directory') await walk(entryName);
    }
  };
  await walk('');
  return out;
}

/** A zip of the entries, files deflated at `level` (0 stores them; yazl's default when not given). */
export async function writeZip(entries: readonly StagedEntry[], destination: string, level?: number): Promise<void> {
  const zip = new yazl.ZipFile();
  const output = createWriteStream(destination);
  const written = once(output, 'close');
  // A file that cannot be read (gone since it was staged) fails the archive, not the process.
  const failed = new Promise<never>((_resolve, reject) => zip.on('error', reject));
  failed.catch(() => output.destroy());
  zip.outputStream.pipe(output);
  for (const entry of entries) {
    if (entry.type === 'directory') zip.addEmptyDirectory(entry.name, { mtime: entry.mtime, mode: 0o040000 | entry.mode });
    else if (entry.type === 'symlink') zip.addBuffer(Buffer.from(readlinkSync(entry.absolute)), entry.name, { mtime: entry.mtime, mode: 0o120777, compress: false });
    else {
      const options = { mtime: entry.mtime, mode: 0o100000 | entry.mode, ...(level === undefined ? {} : { compressionLevel: level }) };
      // A small file read in one call when its turn comes (executors/tar.ts says why): yazl's
      // addFile stats every file at once and reads each through the thread pool.
      if (entry.size <= SMALL_FILE) zip.addReadStreamLazy(entry.name, options, smallFileSource(entry));
      else zip.addFile(entry.absolute, entry.name, options);
    }
  }
  zip.end();
  await Promise.race([written, failed]);
}

/** yazl's lazy source of a small file: its bytes read in one call when its turn comes. */
function smallFileSource(entry: StagedEntry): (ready: (error: Error | null, stream: NodeJS.ReadableStream) => void) => void {
  return (ready) => {
    let bytes: Buffer;
    try {
      bytes = readSmallFile(entry.absolute, entry.size);
    } catch (error) {
      // yazl reports the error (the archive fails) and reads no stream.
      return ready(error instanceof Error ? error : new Error(String(error)), Readable.from([]));
    }
    ready(null, Readable.from([bytes], { objectMode: false }));
  };
}

/** A gzip member per file, each carrying its file name (FNAME), concatenated. */
export async function writeGzipMembers(entries: readonly StagedEntry[], destination: string): Promise<void> {
  const output = createWriteStream(destination);
  const write = async (bytes: Buffer): Promise<void> => {
    if (!output.write(bytes)) await once(output, 'drain');
  };
  for (const entry of entries.filter((candidate) => candidate.type === 'file')) {
    const header = Buffer.alloc(10);
    header.set([0x1f, 0x8b, 8, 0x08], 0);
    header.writeUInt32LE(Math.floor(entry.mtime.getTime() / 1000), 4);
    header[8] = 0;
    header[9] = 3;
    await write(Buffer.concat([header, Buffer.from(entry.name, 'latin1'), Buffer.from([0])]));
    let crc = 0;
    let size = 0;
    const deflate = zlib.createDeflateRaw();
    const compressed = (async () => {
      for await (const chunk of deflate) await write(chunk as Buffer);
    })();
    for await (const chunk of createReadStream(entry.absolute)) {
      const bytes = chunk as Buffer;
      crc = CRC32.buf(bytes, crc);
      size += bytes.length;
      if (!deflate.write(bytes)) await once(deflate, 'drain');
    }
    deflate.end();
    await compressed;
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc >>> 0, 0);
    trailer.writeUInt32LE(size % 2 ** 32, 4);
    await write(trailer);
  }
  output.end();
  await once(output, 'close');
}

export class RawArtifactError extends Error {}

/** The bytes of exactly one file. */
export async function writeRaw(entries: readonly StagedEntry[], destination: string): Promise<void> {
  const files = entries.filter((entry) => entry.type === 'file');
  if (files.length !== 1) throw new RawArtifactError(`raw artifacts need exactly one file, found ${files.length}`);
  await copyFile(files[0].absolute, destination);
}
