/**
 * The progress line `runner exec` keeps at the bottom of a terminal while jobs run: how many
 * are running, pending and done. Log lines are written above it (the line is cleared, the
 * text written, the line drawn again); it is never drawn on a pipe or with `--json`, nor while
 * a `--shell-on-failure` shell has the terminal.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobStatus } from '../pipeline/types.ts';
import { failureShellIsOpen } from './failure-shell.ts';

const CLEAR_LINE = '\r\x1b[2K';
const DONE: ReadonlySet<string> = new Set(['success', 'failed', 'canceled', 'skipped']);
const PENDING: ReadonlySet<string> = new Set(['created', 'pending', 'waiting_for_resource', 'preparing', 'scheduled', 'canceling']);

export class ProgressLine {
  private text = '';

  constructor(private readonly out: (text: string) => void) {}

  /** Writes `text` (whole lines) above the progress line. */
  readonly write = (text: string): void => {
    this.out(this.text === '' ? text : `${CLEAR_LINE}${text}${this.text}`);
  };

  show(statuses: readonly (JobStatus | string)[]): void {
    const next = progressText(statuses);
    if (next === this.text) return;
    this.text = next;
    this.out(`${CLEAR_LINE}${next}`);
  }

  clear(): void {
    if (this.text !== '') this.out(CLEAR_LINE);
    this.text = '';
  }
}

export function progressText(statuses: readonly string[]): string {
  const count = (test: (status: string) => boolean) => statuses.filter(test).length;
  const failed = count((status) => status === 'failed');
  const parts = [
    `${count((status) => status === 'running')} running`,
    `${count((status) => PENDING.has(status))} pending`,
    `${count((status) => DONE.has(status))} done${failed > 0 ? ` (${failed} failed)` : ''}`,
  ];
  const manual = count((status) => status === 'manual');
  if (manual > 0) parts.push(`${manual} manual`);
  return `[jobs: ${parts.join(', ')}]`;
}

/** Redraws the line from `statuses` every `intervalMs` until `signal` aborts. */
export async function keepProgress(line: ProgressLine, statuses: () => Promise<readonly string[]>, signal: AbortSignal, intervalMs = 250): Promise<void> {
  try {
    while (!signal.aborted) {
      // A failure shell has the terminal: no line is drawn under it.
      if (failureShellIsOpen()) line.clear();
      else line.show(await statuses());
      await sleep(intervalMs, undefined, { signal });
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    line.clear();
  }
}

/** Runs `body` with a progress line under what it writes to `out`, when `enabled`; without one otherwise. */
export async function withProgress<T>(
  enabled: boolean,
  out: (text: string) => void,
  statuses: () => Promise<readonly string[]>,
  body: (write: (text: string) => void) => Promise<T>,
): Promise<T> {
  if (!enabled) return body(out);
  const line = new ProgressLine(out);
  const stop = new AbortController();
  const drawing = keepProgress(line, statuses, stop.signal);
  try {
    return await body(line.write);
  } finally {
    stop.abort();
    await drawing;
  }
}
