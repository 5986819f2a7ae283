import type { JobStatus, PipelineJob } from './types.ts';

/**
 * Status composition of modern `Gitlab::Ci::Status::Composite` (§5.1).
 *
 * Every rule only asks which symbols occur, so a set of jobs is folded into a bitmask and
 * the rules become subset and membership tests: adding a job and reading the status are O(1).
 */

const CREATED = 1 << 0;
const PENDING = 1 << 1;
const RUNNING = 1 << 2;
const SUCCESS = 1 << 3;
const FAILED = 1 << 4;
const CANCELED = 1 << 5;
const SKIPPED = 1 << 6;
const MANUAL = 1 << 7;
const SCHEDULED = 1 << 8;
const SUCCESS_WITH_WARNINGS = 1 << 9;
const IGNORED = 1 << 10;
const CANCELING = 1 << 11;
const WAITING_FOR_RESOURCE = 1 << 12;

const STATUS_BIT: Readonly<Record<JobStatus, number>> = {
  created: CREATED,
  waiting_for_resource: WAITING_FOR_RESOURCE,
  pending: PENDING,
  running: RUNNING,
  canceling: CANCELING,
  success: SUCCESS,
  failed: FAILED,
  canceled: CANCELED,
  skipped: SKIPPED,
  manual: MANUAL,
  scheduled: SCHEDULED,
};

export type CompositeSymbol = JobStatus | 'success_with_warnings' | 'ignored';

const SYMBOL_BIT: Readonly<Record<CompositeSymbol, number>> = {
  ...STATUS_BIT,
  success_with_warnings: SUCCESS_WITH_WARNINGS,
  ignored: IGNORED,
};

type StatusAndAllowFailure = Pick<PipelineJob, 'status' | 'allowFailure'>;

/** The symbol a job contributes (§5.1): allowed failures warn, optional manual jobs are ignored. */
export function compositeSymbolOf(job: StatusAndAllowFailure): CompositeSymbol {
  if (job.allowFailure && (job.status === 'failed' || job.status === 'canceled')) {
    return 'success_with_warnings';
  }
  if (job.allowFailure && job.status === 'manual') return 'ignored';
  return job.status;
}

function only(mask: number, allowed: number): boolean {
  return (mask & ~allowed) === 0;
}

/** Rules 1–16 of §5.1 (6 and 13 name a status Gantry does not have, `preparing`), first match wins; null when no job contributed (rule 1). */
export function statusFromSymbolMask(mask: number, dag: boolean): JobStatus | null {
  if (mask === 0) return null;
  if (dag && (mask & (SKIPPED | IGNORED)) !== 0) return 'skipped';
  if (only(mask, SKIPPED | IGNORED)) return 'skipped';
  if (only(mask, SUCCESS | SKIPPED | SUCCESS_WITH_WARNINGS | IGNORED)) return 'success';
  if (only(mask, CREATED | SUCCESS_WITH_WARNINGS | IGNORED)) return 'created';
  if (only(mask, CANCELED | SUCCESS | SKIPPED | SUCCESS_WITH_WARNINGS | IGNORED)) return 'canceled';
  if (only(mask, PENDING | CREATED | SKIPPED | SUCCESS_WITH_WARNINGS | IGNORED)) return 'pending';
  if ((mask & (RUNNING | PENDING)) !== 0) return 'running';
  if ((mask & WAITING_FOR_RESOURCE) !== 0) return 'waiting_for_resource';
  if ((mask & MANUAL) !== 0) return 'manual';
  if ((mask & SCHEDULED) !== 0) return 'scheduled';
  if ((mask & CREATED) !== 0) return 'running';
  if ((mask & CANCELING) !== 0) return 'canceling';
  return 'failed';
}

/** Folds jobs one at a time; reading the status never rescans them. */
export class StatusAccumulator {
  private mask = 0;
  private warnings = false;

  add(job: StatusAndAllowFailure): void {
    const symbol = compositeSymbolOf(job);
    this.mask |= SYMBOL_BIT[symbol];
    if (symbol === 'success_with_warnings') this.warnings = true;
  }

  /** Composite of the jobs added so far; null for none. */
  status(dag = false): JobStatus | null {
    return statusFromSymbolMask(this.mask, dag);
  }

  get hasWarnings(): boolean {
    return this.warnings;
  }
}

/** Composite of the given jobs (callers pass the latest jobs only); null for none. */
export function compositeStatus(
  jobs: Iterable<StatusAndAllowFailure>,
  options: { dag?: boolean } = {},
): JobStatus | null {
  const accumulator = new StatusAccumulator();
  for (const job of jobs) accumulator.add(job);
  return accumulator.status(options.dag ?? false);
}

/** Composite of a set of symbols, for tables that speak in §5.1's terms. */
export function compositeOfSymbols(
  symbols: Iterable<CompositeSymbol>,
  options: { dag?: boolean } = {},
): JobStatus | null {
  let mask = 0;
  for (const symbol of symbols) mask |= SYMBOL_BIT[symbol];
  return statusFromSymbolMask(mask, options.dag ?? false);
}
