/**
 * User-supplied regular expressions (RE2 syntax, re2js) compiled and matched within a budget,
 * in a thread of their own (regex-budget-worker.ts): RE2 matches in time linear in the text,
 * but re2js can still spend seconds and hundreds of MB compiling a 4,000-character pattern
 * (`(a{1,1000})` repeated), and tens of milliseconds matching a large program. A pattern is
 * 'over budget' when its program has more than `maxProgramSize` instructions, or when its call
 * takes longer than `timeLimitMs` or more heap than `memoryMb` (the thread is then ended, and
 * the next call starts another). Calls run one at a time; the thread does not keep the process
 * alive while idle, and ends after a minute without calls.
 */
import { Worker } from 'node:worker_threads';

export type RegexOutcome = 'valid' | 'invalid' | 'over budget' | 'match' | 'no match';
export interface RegexRequest {
  id: number;
  pattern: string;
  /** Absent (and no `coverageIn`): compile only. */
  text?: string;
  /** Whole log lines to find a job's coverage in (coverage-scan.ts). */
  coverageIn?: { text: string; stripTimestamps: boolean };
  maxProgramSize: number;
}
export interface RegexResponse {
  id: number;
  outcome: RegexOutcome;
  /** Of a `coverageIn` request that matched: the coverage's text, or null (no coverage). */
  coverage?: string | null;
}

/** What a block of log lines says of a job's coverage: `found` ends the search, `none` lets it go on to earlier lines. */
export type CoverageOutcome = { kind: 'found'; coverage: string | null } | { kind: 'none' } | { kind: 'invalid' } | { kind: 'over budget' };

export interface RegexBudgetOptions {
  /** RE2 program instructions (re2js's programSize; default 1,000). */
  maxProgramSize?: number;
  /** One call's wall time in the thread, its start not counted (default 1 s). */
  timeLimitMs?: number;
  /** The thread's heap (default 64 MB). */
  memoryMb?: number;
  /** The thread ends after this long without a call (default a minute). */
  idleMs?: number;
}

interface RunningThread {
  thread: Worker;
  ready: Promise<void>;
}

export class RegexBudget {
  private running: RunningThread | undefined;
  private turn: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: RegexBudgetOptions = {}) {}

  /** Whether RE2 accepts the pattern within the budget. */
  async check(pattern: string): Promise<'valid' | 'invalid' | 'over budget'> {
    const outcome = await this.call(pattern, undefined);
    return outcome === 'match' || outcome === 'no match' ? 'valid' : outcome;
  }

  /** Whether the pattern matches anywhere in the text; a pattern RE2 refuses or over budget matches nothing. */
  async matches(pattern: string, text: string): Promise<boolean> {
    return (await this.call(pattern, text)) === 'match';
  }

  /** GitLab's coverage of whole log lines, the last line first (coverage-scan.ts). */
  async coverageIn(pattern: string, text: string, stripTimestamps: boolean): Promise<CoverageOutcome> {
    const response = await this.request(pattern, { coverageIn: { text, stripTimestamps } });
    if (response.outcome === 'match') return { kind: 'found', coverage: response.coverage ?? null };
    if (response.outcome === 'invalid' || response.outcome === 'over budget') return { kind: response.outcome };
    return { kind: 'none' };
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const running = this.running;
    this.running = undefined;
    await running?.thread.terminate();
  }

  private async call(pattern: string, text: string | undefined): Promise<RegexOutcome> {
    return (await this.request(pattern, { text })).outcome;
  }

  private request(pattern: string, input: Pick<RegexRequest, 'text' | 'coverageIn'>): Promise<RegexResponse> {
    const request: RegexRequest = { id: this.nextId, pattern, ...input, maxProgramSize: this.options.maxProgramSize ?? 1000 };
    this.nextId += 1;
    const result = this.turn.then(() => this.send(request));
    this.turn = result.catch(() => undefined);
    return result;
  }

  private async send(request: RegexRequest): Promise<RegexResponse> {
    clearTimeout(this.idleTimer);
    const running = this.thread();
    await running.ready;
    const { thread } = running;
    thread.ref();
    let timer: NodeJS.Timeout | undefined;
    let onMessage: ((message: RegexResponse) => void) | undefined;
    let onEnd: (() => void) | undefined;
    try {
      const overBudget: RegexResponse = { id: request.id, outcome: 'over budget' };
      return await new Promise<RegexResponse>((resolve) => {
        onMessage = (message) => {
          if (message.id === request.id) resolve(message);
        };
        // Past its heap the thread exits with an error: the pattern was over budget.
        onEnd = () => resolve(overBudget);
        timer = setTimeout(() => {
          resolve(overBudget);
          void this.end(running);
        }, this.options.timeLimitMs ?? 1000);
        thread.on('message', onMessage).on('error', onEnd).on('exit', onEnd);
        thread.postMessage(request);
      });
    } finally {
      clearTimeout(timer);
      if (onMessage) thread.off('message', onMessage);
      if (onEnd) thread.off('error', onEnd).off('exit', onEnd);
      if (this.running === running) {
        thread.unref();
        this.idleTimer = setTimeout(() => void this.end(running), this.options.idleMs ?? 60_000).unref();
      }
    }
  }

  private thread(): RunningThread {
    if (this.running) return this.running;
    const thread = startThread(this.options.memoryMb ?? 64);
    const ready = new Promise<void>((resolve, reject) => {
      const onReady = () => {
        thread.off('error', reject);
        resolve();
      };
      thread.once('message', onReady).once('error', reject);
    });
    const running = { thread, ready };
    thread.once('exit', () => {
      if (this.running === running) this.running = undefined;
    });
    // Past its heap the thread ends with an error, also after its call was answered (timed out):
    // always heard, it is that pattern's outcome, not the process's failure.
    thread.on('error', () => void this.end(running));
    // Not a thread that failed to start over and over: the next call starts it again.
    ready.catch(() => void this.end(running));
    this.running = running;
    return running;
  }

  private async end(running: RunningThread): Promise<void> {
    if (this.running === running) this.running = undefined;
    await running.thread.terminate();
  }
}

function startThread(memoryMb: number): Worker {
  const options = { resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.min(16, memoryMb) } };
  const here = import.meta.url;
  // Through `../shared/`: in `runner exec`'s bundle (dist/cli/) `here` is the bundle's url.
  if (!here.endsWith('.ts')) return new Worker(new URL('../shared/regex-budget-worker.js', here), options);
  const entry = JSON.stringify(new URL('../shared/regex-budget-worker.ts', here).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${tsx}).then(({ register }) => { register(); return import(${entry}); })`, { ...options, eval: true });
}

/** The process's (each thread's) budget for webhook branch filters. */
export const regexBudget = new RegexBudget();
