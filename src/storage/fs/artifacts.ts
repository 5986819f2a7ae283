import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ArtifactTooLargeError, type ArtifactLocation, type ArtifactStore, type ByteRange, type StoredArtifactFile, type ZipIndexLimits, type ZipMember, type ZipMemberLocation } from '../types-blobs.ts';
import { isMissingFile, syncDirectory } from './durable.ts';
import { listZipMembers, openZipMember } from './zip-members.ts';

/**
 * Bytes buffered ahead of the disk: while one write is in flight, what arrives meanwhile is
 * written with the next `writev` (a socket delivers 64 KiB at a time; one write each is slow).
 */
const WRITE_BATCH = 1024 * 1024;

/** What a stored path may look like: `artifacts/<project>/<job>/<file>` (no hidden file: temporary files are). */
const STORED_PATH = /^artifacts\/[1-9]\d*\/[1-9]\d*\/[^/\\\0.][^/\\\0]*$/;

/**
 * Artifact files under `<dataDir>/artifacts/<project>/<job>/<file>`. Writes go through a
 * temporary file in the same directory, flushed and renamed when complete.
 */
export class FileArtifactStore implements ArtifactStore {
  constructor(private readonly dataDir: string) {}

  async write(location: ArtifactLocation, source: Readable, options: { maxBytes: number; signal?: AbortSignal }): Promise<StoredArtifactFile> {
    const relative = storedPath(location);
    const target = join(this.dataDir, relative);
    const directory = join(this.dataDir, posix.dirname(relative));
    await mkdir(directory, { recursive: true });
    const temporary = join(directory, `.${location.fileName}.${randomBytes(6).toString('hex')}.partial`);
    const hash = createHash('sha256');
    let size = 0;
    const meter = new Transform({
      highWaterMark: WRITE_BATCH,
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        // Stop reading at once: the source is destroyed, nothing past the limit is written.
        if (size > options.maxBytes) return done(new ArtifactTooLargeError(options.maxBytes));
        hash.update(chunk);
        done(null, chunk);
      },
    });
    const output = createWriteStream(temporary, { flags: 'wx', flush: true, highWaterMark: WRITE_BATCH });
    try {
      await pipeline(source, meter, output, { signal: options.signal });
      await rename(temporary, target);
    } catch (error) {
      // A write stream destroyed while its file was still being opened makes the file once the
      // open completes: wait for it to close, or the removal below comes first and the file stays.
      if (!output.closed) await new Promise<void>((closed) => output.once('close', () => closed()));
      await rm(temporary, { force: true });
      await removeEmptyDirectories(this.dataDir, relative);
      throw options.signal?.aborted ? (options.signal.reason as unknown) : error;
    }
    await syncDirectory(directory);
    return { path: relative, size, sha256: hash.digest('hex') };
  }

  async read(path: string, range: ByteRange = { start: 0 }): Promise<{ stream: Readable; size: number } | undefined> {
    const file = this.resolve(path);
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch (error) {
      if (isMissingFile(error)) return undefined;
      throw error;
    }
    const end = Math.min(range.end ?? size, size);
    if (end <= range.start) return { stream: Readable.from([]), size: 0 };
    return { stream: createReadStream(file, { start: range.start, end: end - 1 }), size: end - range.start };
  }

  async remove(path: string): Promise<void> {
    const file = this.resolve(path);
    await rm(file, { force: true });
    await removeEmptyDirectories(this.dataDir, path);
  }

  listZipMembers(path: string, options: { limits: ZipIndexLimits; signal?: AbortSignal }): Promise<ZipMember[]> {
    return listZipMembers(this.resolve(path), options);
  }

  openZipMember(path: string, location: ZipMemberLocation, options?: { signal?: AbortSignal }): Promise<{ stream: Readable; size: number }> {
    return openZipMember(this.resolve(path), location, options);
  }

  /** Only paths this store hands out resolve; anything else is a programming error. */
  private resolve(path: string): string {
    if (!STORED_PATH.test(path)) throw new Error(`not an artifact path: ${JSON.stringify(path)}`);
    return join(this.dataDir, path);
  }
}

/** Drops the job's and the project's directories of `path` once empty (a failed write leaves none behind). */
async function removeEmptyDirectories(dataDir: string, path: string): Promise<void> {
  for (const directory of [posix.dirname(path), posix.dirname(posix.dirname(path))]) {
    try {
      await rmdir(join(dataDir, directory));
    } catch {
      return;
    }
  }
}

function storedPath(location: ArtifactLocation): string {
  const { projectId, jobId, fileName } = location;
  for (const id of [projectId, jobId]) {
    if (!Number.isSafeInteger(id) || id <= 0) throw new Error(`invalid id ${id}`);
  }
  const path = `artifacts/${projectId}/${jobId}/${fileName}`;
  if (!STORED_PATH.test(path) || Buffer.byteLength(fileName) > 255) throw new Error(`invalid artifact file name ${JSON.stringify(fileName)}`);
  return path;
}
