import { createReadStream } from 'node:fs';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { isMissingFile, syncDirectory } from './durable.ts';
import { continueCrc32, formatTraceChecksum } from '../trace-checksum.ts';
import { appendRefusal } from '../trace-offsets.ts';
import type { ByteRange, TraceAppendResult, TraceStore } from '../types-blobs.ts';

/**
 * Traces as append-only files `<dataDir>/traces/<job id>.log`, for one coordinator: appends
 * to one job run one at a time in this process, and each is flushed to disk before it
 * answers. Several coordinators need the database implementation (SqlTraceStore).
 */
export class FileTraceStore implements TraceStore {
  private readonly directory: string;
  private readonly queues = new Map<number, Promise<unknown>>();
  private directoryReady: Promise<unknown> | undefined;

  constructor(dataDir: string) {
    this.directory = join(dataDir, 'traces');
  }

  append(jobId: number, offset: number, bytes: Uint8Array): Promise<TraceAppendResult> {
    return this.serialised(jobId, async () => {
      const size = await this.size(jobId);
      const refused = appendRefusal(offset, size);
      if (refused) return refused;
      if (bytes.length === 0) return { size };
      this.directoryReady ??= mkdir(this.directory, { recursive: true });
      await this.directoryReady;
      const file = await open(this.pathOf(jobId), 'a');
      try {
        await file.write(bytes);
        await file.datasync();
      } finally {
        await file.close();
      }
      if (size === 0) await syncDirectory(this.directory);
      return { size: size + bytes.length };
    });
  }

  async size(jobId: number): Promise<number> {
    try {
      return (await stat(this.pathOf(jobId))).size;
    } catch (error) {
      if (isMissingFile(error)) return 0;
      throw error;
    }
  }

  async read(jobId: number, range: ByteRange = { start: 0 }): Promise<Readable | undefined> {
    const size = await this.size(jobId);
    if (size === 0) return undefined;
    const end = Math.min(range.end ?? size, size);
    if (end <= range.start) return Readable.from([]);
    return createReadStream(this.pathOf(jobId), { start: range.start, end: end - 1 }); // end is inclusive
  }

  async checksum(jobId: number): Promise<string | undefined> {
    const stream = await this.read(jobId);
    if (!stream) return undefined;
    let crc = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) crc = continueCrc32(crc, chunk);
    return formatTraceChecksum(crc);
  }

  remove(jobId: number): Promise<void> {
    return this.serialised(jobId, () => rm(this.pathOf(jobId), { force: true }));
  }

  private pathOf(jobId: number): string {
    if (!Number.isSafeInteger(jobId) || jobId <= 0) throw new Error(`invalid job id ${jobId}`);
    return join(this.directory, `${jobId}.log`);
  }

  /** Runs `work` after every earlier call for the job has finished. */
  private serialised<T>(jobId: number, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(jobId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.queues.set(jobId, settled);
    void settled.then(() => {
      if (this.queues.get(jobId) === settled) this.queues.delete(jobId);
    });
    return next;
  }
}
