import { Readable } from 'node:stream';
import { isUniqueViolation, type Db } from '../database.ts';
import { continueCrc32, formatTraceChecksum } from '../../trace-checksum.ts';
import { appendRefusal } from '../../trace-offsets.ts';
import type { ByteRange, TraceAppendResult, TraceStore } from '../../types-blobs.ts';

/** Chunks fetched per query while streaming a trace. */
const READ_BATCH = 32;

/**
 * Traces as rows of `ci_trace_chunks`, one per appended patch, so several coordinators on one
 * PostgreSQL see the same bytes. Each row carries the CRC of the trace up to its end, which
 * makes `size` and `checksum` one indexed read. The primary key (job, start offset) settles
 * races: two appends at one offset cannot both be stored. Call outside a transaction (the
 * lost race is a unique violation, which would abort a PostgreSQL transaction).
 */
export class SqlTraceStore implements TraceStore {
  constructor(private readonly db: Db) {}

  async append(jobId: number, offset: number, bytes: Uint8Array): Promise<TraceAppendResult> {
    const last = await this.lastChunk(jobId);
    const refused = appendRefusal(offset, last ? last.end : 0);
    if (refused) return refused;
    if (bytes.length === 0) return { size: offset };
    const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    try {
      await this.db
        .insertInto('ci_trace_chunks')
        .values({ job_id: jobId, start_offset: offset, end_offset: offset + data.length, data, crc32: continueCrc32(last ? last.crc : 0, data) })
        .execute();
    } catch (error) {
      if (isUniqueViolation(error)) return { conflict: await this.size(jobId) };
      throw error;
    }
    return { size: offset + data.length };
  }

  async size(jobId: number): Promise<number> {
    return (await this.lastChunk(jobId))?.end ?? 0;
  }

  async read(jobId: number, range: ByteRange = { start: 0 }): Promise<Readable | undefined> {
    const size = await this.size(jobId);
    if (size === 0) return undefined;
    const end = Math.min(range.end ?? size, size);
    return Readable.from(this.chunks(jobId, range.start, end));
  }

  async checksum(jobId: number): Promise<string | undefined> {
    const last = await this.lastChunk(jobId);
    return last && formatTraceChecksum(last.crc);
  }

  async remove(jobId: number): Promise<void> {
    await this.db.deleteFrom('ci_trace_chunks').where('job_id', '=', jobId).execute();
  }

  private async lastChunk(jobId: number): Promise<{ end: number; crc: number } | undefined> {
    const row = await this.db
      .selectFrom('ci_trace_chunks')
      .select(['end_offset', 'crc32'])
      .where('job_id', '=', jobId)
      .orderBy('start_offset', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && { end: Number(row.end_offset), crc: Number(row.crc32) };
  }

  /** The bytes in [start, end), a few chunks per query, walking the primary key from the chunk holding `start`. */
  private async *chunks(jobId: number, start: number, end: number): AsyncGenerator<Buffer> {
    const first = await this.db
      .selectFrom('ci_trace_chunks')
      .select('start_offset')
      .where('job_id', '=', jobId)
      .where('start_offset', '<=', start)
      .orderBy('start_offset', 'desc')
      .limit(1)
      .executeTakeFirst();
    let from = first ? Number(first.start_offset) : 0;
    for (;;) {
      const rows = await this.db
        .selectFrom('ci_trace_chunks')
        .select(['start_offset', 'end_offset', 'data'])
        .where('job_id', '=', jobId)
        .where('start_offset', '>=', from)
        .where('start_offset', '<', end)
        .orderBy('start_offset')
        .limit(READ_BATCH)
        .execute();
      for (const row of rows) {
        const chunkStart = Number(row.start_offset);
        const data = Buffer.isBuffer(row.data) ? row.data : Buffer.from(row.data);
        const slice = data.subarray(Math.max(start, chunkStart) - chunkStart, Math.min(end, Number(row.end_offset)) - chunkStart);
        if (slice.length > 0) yield slice;
      }
      if (rows.length < READ_BATCH) return;
      from = Number(rows[rows.length - 1].start_offset) + 1;
    }
  }
}
