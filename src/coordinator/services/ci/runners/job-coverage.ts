import { buffer } from 'node:stream/consumers';
import { splitTimestampedLine, TIMESTAMP_PREFIX_LENGTH } from '../../../../shared/log-lines.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { RegexBudget } from '../../../../shared/regex-budget.ts';
import type { TraceStore } from '../../../../storage/types-blobs.ts';

/** Defaults of the coverage scan's budget. */
export const COVERAGE_DEFAULTS = {
  /** The log's last bytes read; GitLab reads the whole log (up to its 100 MB limit). */
  maxBytes: 10 * 1024 * 1024,
  /** The whole scan's wall time; past it the job gets no coverage. */
  timeLimitMs: 5_000,
  /** Bytes read and matched at a time. */
  chunkBytes: 64 * 1024,
} as const;

export interface CoverageLimits {
  maxBytes?: number;
  timeLimitMs?: number;
  chunkBytes?: number;
}

export interface JobCoverageDeps {
  traces: Pick<TraceStore, 'size' | 'read'>;
  /** The regex thread the log's lines are matched in (a budget of its own, not the webhooks'). */
  regexes: Pick<RegexBudget, 'coverageIn'>;
  logger: Logger;
  limits?: CoverageLimits;
  /** Epoch milliseconds. */
  clock?: () => number;
}

const NEWLINE = 0x0a;

/**
 * A finished job's coverage from its log, as GitLab's `Ci::Build#update_coverage` finds it
 * (the last line the job's `coverage` regex matches that holds a number; coverage-scan.ts).
 * The log is read backwards from the store a chunk at a time and matched in the regex thread,
 * so neither the log nor the pattern holds the event loop; the scan stops, finding nothing,
 * past its bytes or its time.
 */
export class JobCoverage {
  private readonly clock: () => number;

  constructor(private readonly deps: JobCoverageDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /**
   * The coverage of the job's log with `pattern` (RE2 syntax, no slashes); null when none is
   * found. Never fails: as GitLab's, a failed scan (the store, the thread) only logs.
   */
  async extract(jobId: number, pattern: string): Promise<number | null> {
    try {
      return await this.scan(jobId, pattern);
    } catch (error) {
      this.deps.logger.warn({ job: jobId, err: error }, 'the coverage scan of the job log failed');
      return null;
    }
  }

  private async scan(jobId: number, pattern: string): Promise<number | null> {
    const limits = { ...COVERAGE_DEFAULTS, ...this.deps.limits };
    const deadline = this.clock() + limits.timeLimitMs;
    const size = await this.deps.traces.size(jobId);
    if (size === 0) return null;
    const stripTimestamps = splitTimestampedLine((await this.readRange(jobId, 0, Math.min(size, TIMESTAMP_PREFIX_LENGTH))).toString('utf8')) !== null;
    const floor = Math.max(0, size - limits.maxBytes);
    let end = size;
    // The end of a line whose start is in bytes not read yet.
    let carry: Buffer = Buffer.alloc(0);
    while (end > floor) {
      const start = Math.max(floor, end - limits.chunkBytes);
      const block = Buffer.concat([await this.readRange(jobId, start, end), carry]);
      end = start;
      // Bytes before the first newline belong to a line that starts earlier (or before the budget).
      const cut = start > 0 ? block.indexOf(NEWLINE) : -1;
      if (start > 0 && cut < 0) {
        carry = block;
        continue;
      }
      carry = block.subarray(0, Math.max(0, cut));
      const outcome = await this.deps.regexes.coverageIn(pattern, block.subarray(cut + 1).toString('utf8'), stripTimestamps);
      if (outcome.kind === 'found') return outcome.coverage === null ? null : Number(outcome.coverage);
      if (outcome.kind !== 'none') return this.stopped(jobId, `the coverage regex is ${outcome.kind === 'invalid' ? 'not valid RE2 syntax' : 'over the regular expression budget'}`);
      if (this.clock() > deadline) return this.stopped(jobId, `the coverage scan passed its ${String(limits.timeLimitMs)} ms`);
    }
    if (floor > 0) this.deps.logger.info({ job: jobId, scannedBytes: size - floor }, 'no coverage in the last bytes of the job log the scan reads');
    return null;
  }

  private stopped(jobId: number, why: string): null {
    this.deps.logger.warn({ job: jobId }, `no coverage: ${why}`);
    return null;
  }

  /** `[start, end)` of the log: at most one chunk (or a prefix), held while it is matched. */
  private async readRange(jobId: number, start: number, end: number): Promise<Buffer> {
    const stream = await this.deps.traces.read(jobId, { start, end });
    return stream ? buffer(stream) : Buffer.alloc(0);
  }
}
