import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PackageFileTooLargeError, type PackageFileBlobs, type StoredPackageFile } from '../types-packages.ts';
import { isMissingFile, syncDirectory } from './durable.ts';

/** Bytes buffered ahead of the disk, as for artifacts (one write per socket chunk is slow). */
const WRITE_BATCH = 1024 * 1024;

/** What a stored path looks like: `packages/<project>/<24 hex digits>` (temporary files start with a dot). */
const STORED_PATH = /^packages\/[1-9]\d*\/[0-9a-f]{24}$/;

/**
 * Package files under `<dataDir>/packages/<project>/<random name>`: the name a user gives a
 * file is a database column only, never a path. Writes go through a temporary file in the
 * same directory, flushed and renamed when complete, like artifacts (fs/artifacts.ts).
 */
export class FsPackageFileBlobs implements PackageFileBlobs {
  constructor(private readonly dataDir: string) {}

  async write(projectId: number, source: Readable, options: { maxBytes: number; signal?: AbortSignal }): Promise<StoredPackageFile> {
    if (!Number.isSafeInteger(projectId) || projectId <= 0) throw new Error(`invalid project id ${projectId}`);
    const relative = `packages/${projectId}/${randomBytes(12).toString('hex')}`;
    const directory = join(this.dataDir, 'packages', String(projectId));
    await mkdir(directory, { recursive: true });
    const target = join(this.dataDir, relative);
    const temporary = join(directory, `.${randomBytes(6).toString('hex')}.partial`);
    const sha256 = createHash('sha256');
    const md5 = createHash('md5');
    let size = 0;
    const meter = new Transform({
      highWaterMark: WRITE_BATCH,
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > options.maxBytes) return done(new PackageFileTooLargeError(options.maxBytes));
        sha256.update(chunk);
        md5.update(chunk);
        done(null, chunk);
      },
    });
    const output = createWriteStream(temporary, { flags: 'wx', flush: true, highWaterMark: WRITE_BATCH });
    // Piped, not pipelined: past the budget the source is left unread rather than destroyed, so
    // the caller can still answer on its connection. Its own failure still stops the write.
    const sourceFailed = (error: Error) => meter.destroy(error);
    source.once('error', sourceFailed);
    source.pipe(meter);
    try {
      await pipeline(meter, output, { signal: options.signal });
      await rename(temporary, target);
    } catch (error) {
      source.unpipe(meter);
      // A write stream destroyed while still opening makes its file once the open completes: wait for it.
      if (!output.closed) await new Promise<void>((closed) => output.once('close', () => closed()));
      await rm(temporary, { force: true });
      throw options.signal?.aborted ? (options.signal.reason as unknown) : error;
    } finally {
      source.off('error', sourceFailed);
    }
    await syncDirectory(directory);
    return { path: relative, size, sha256: sha256.digest('hex'), md5: md5.digest('hex') };
  }

  async read(path: string): Promise<{ stream: Readable; size: number } | undefined> {
    const file = this.resolve(path);
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch (error) {
      if (isMissingFile(error)) return undefined;
      throw error;
    }
    return { stream: createReadStream(file), size };
  }

  async remove(path: string): Promise<void> {
    await rm(this.resolve(path), { force: true });
  }

  async removeForProjects(projectIds: readonly number[]): Promise<void> {
    for (const id of projectIds) {
      if (!Number.isSafeInteger(id) || id <= 0) throw new Error(`invalid project id ${id}`);
      await rm(join(this.dataDir, 'packages', String(id)), { recursive: true, force: true });
    }
  }

  /** Only paths this store hands out resolve; anything else is a programming error. */
  private resolve(path: string): string {
    if (!STORED_PATH.test(path)) throw new Error(`not a package file path: ${JSON.stringify(path)}`);
    return join(this.dataDir, path);
  }
}
