import { copyFile, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { GantryError } from '../../shared/errors.ts';
import type { UploadBlobs } from '../types-uploads.ts';
import { isMissingFile, syncDirectory } from './durable.ts';

const SAFE_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** Kept uploads as files under `<data dir>/uploads/<key...>`. */
export class FsUploadBlobs implements UploadBlobs {
  constructor(private readonly root: string) {}

  async head(sourcePath: string, length: number): Promise<Buffer> {
    const handle = await open(sourcePath, 'r');
    try {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  async keptHead(key: readonly string[], length: number): Promise<Buffer> {
    try {
      return await this.head(this.pathOf(key), length);
    } catch (error) {
      if (isMissingFile(error)) return Buffer.alloc(0);
      throw error;
    }
  }

  async keep(sourcePath: string, key: readonly string[], options: { replaceDirectory?: boolean } = {}): Promise<void> {
    const target = this.pathOf(key);
    const directory = path.dirname(target);
    if (options.replaceDirectory) await rm(directory, { recursive: true, force: true });
    await mkdir(directory, { recursive: true });
    try {
      await rename(sourcePath, target);
    } catch (error) {
      // The upload directory may sit on another file system than the data directory.
      if ((error as { code?: unknown }).code !== 'EXDEV') throw error;
      await copyFile(sourcePath, target);
    }
    await syncDirectory(directory);
  }

  async removeDirectory(key: readonly string[], options: { except?: string } = {}): Promise<void> {
    const directory = this.pathOf(key);
    if (options.except === undefined) {
      await rm(directory, { recursive: true, force: true });
      return;
    }
    const entries = await readdir(directory).catch((error: unknown) => {
      if (isMissingFile(error)) return [] as string[];
      throw error;
    });
    await Promise.all(entries.filter((entry) => entry !== options.except).map((entry) => rm(path.join(directory, entry), { recursive: true, force: true })));
  }

  async open(key: readonly string[]): Promise<{ stream: Readable; size: number } | undefined> {
    let handle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if (isMissingFile(error) || (error as { code?: unknown }).code === 'EISDIR') return undefined;
      throw error;
    }
    const stats = await handle.stat();
    if (!stats.isFile()) {
      await handle.close();
      return undefined;
    }
    return { stream: handle.createReadStream(), size: stats.size };
  }

  private pathOf(key: readonly string[]): string {
    if (key.length === 0 || key.some((segment) => !SAFE_SEGMENT.test(segment))) {
      throw new GantryError('GANTRY_E_INTERNAL', `unsafe upload key ${key.join('/')}`);
    }
    return path.join(this.root, ...key);
  }
}
