/**
 * The job log as GitLab shows it (reference §7.5, §8.2): runner lines with gitlab-runner's
 * ANSI prefixes, section markers, masking before anything leaves the process (credential
 * URL parameters and prefixed tokens, then the masked values, then invalid UTF-8 replaced, as
 * gitlab-runner's buffer does), and the output limit with GitLab's exact message. Bytes go to a sink (the
 * JobSession) in order. With `timestamps` (FF_TIMESTAMPS) every line gets gitlab-runner
 * 18.7's prefix: the runner's own lines on stream 0, the job's output on stream 1.
 */
import { RUNNER_STREAM, WORK_STREAM } from '../../shared/log-lines.ts';
import { StreamMasker } from './masker.ts';
import { PatternMasker } from './pattern-masker.ts';
import { Utf8Repair } from './utf8-repair.ts';
import { LineTimestamper } from './timestamps.ts';

export const ANSI = {
  reset: '\x1b[0;m',
  clear: '\x1b[0K',
  boldGreen: '\x1b[32;1m',
  boldCyan: '\x1b[36;1m',
  boldRed: '\x1b[31;1m',
  boldYellow: '\x1b[33;1m',
  yellow: '\x1b[0;33m',
} as const;

export interface TraceOptions {
  sink: (bytes: Buffer) => void;
  maskedValues: readonly string[];
  /** The payload's `features.token_mask_prefixes` (`glpat-` is masked always). */
  tokenPrefixes?: readonly string[];
  /** Bytes; gitlab-runner's default is 4096 KiB. */
  limitBytes: number;
  /** Print section_start/section_end markers (the payload's features.trace_sections). */
  sections: boolean;
  now?: () => Date;
  /** Told how long each section took (the runner's per-stage metric). */
  onSection?: (name: string, seconds: number) => void;
  /** Prefix every line with its time and stream (FF_TIMESTAMPS). */
  timestamps?: boolean;
}

export class JobTrace {
  private masker: StreamMasker;
  private readonly patterns: PatternMasker;
  private readonly utf8 = new Utf8Repair();
  private written = 0;
  private limitReached = false;
  private closed = false;
  private readonly now: () => Date;
  private readonly sectionStarts = new Map<string, number>();
  private readonly work: LineTimestamper | null;
  private readonly runner: LineTimestamper | null;

  constructor(private readonly options: TraceOptions) {
    this.masker = new StreamMasker(options.maskedValues);
    this.patterns = new PatternMasker(options.tokenPrefixes);
    this.now = options.now ?? (() => new Date());
    this.work = options.timestamps ? new LineTimestamper(WORK_STREAM) : null;
    this.runner = options.timestamps ? new LineTimestamper(RUNNER_STREAM) : null;
  }

  /** Bytes the job produced (script output): masked, then limited. */
  write(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.out(this.utf8.write(this.masker.write(this.patterns.write(bytes))), this.work);
  }

  /** Masks these values from now on (the full variable list is known once the environment is). */
  setMaskedValues(values: readonly string[]): void {
    this.flush();
    this.masker = new StreamMasker(values);
  }

  /** Releases bytes the masker held back (end of a stage); ends a partial line of timestamped output. */
  flush(): void {
    const held = Buffer.concat([this.masker.write(this.patterns.flush()), this.masker.flush()]);
    this.out(Buffer.concat([this.utf8.write(held), this.utf8.flush()]), this.work);
    if (this.work) this.emit(this.work.close());
  }

  /** The end of the log: everything held is written, and nothing after it (a service's output still followed, say). */
  close(): void {
    this.flush();
    if (this.runner) this.emit(this.runner.close());
    this.closed = true;
  }

  get bytesWritten(): number {
    return this.written;
  }

  /** BuildLogger.Println: `\e[0K<text>\n\e[0;m`. */
  println(text: string): void {
    this.runnerLine(ANSI.clear, text);
  }

  /** BuildLogger.Infoln (bold green), for `Job succeeded`. */
  info(text: string): void {
    this.runnerLine(ANSI.boldGreen, text);
  }

  warning(text: string): void {
    this.runnerLine(`${ANSI.yellow}WARNING: `, text);
  }

  error(text: string): void {
    this.runnerLine(`${ANSI.boldRed}ERROR: `, text);
  }

  /** A green notice as generated scripts print it: `\e[32;1m<text>\e[0;m\n`. */
  notice(text: string): void {
    this.write(`${ANSI.boldGreen}${text}${ANSI.reset}\n`);
  }

  sectionStart(name: string, title: string): void {
    this.sectionStarts.set(name, performance.now());
    this.flush();
    if (this.options.sections) this.runnerBytes(`section_start:${this.timestamp()}:${name}\r${ANSI.clear}`);
    this.println(`${ANSI.boldCyan}${title}${ANSI.reset}`);
  }

  sectionEnd(name: string): void {
    this.flush();
    if (this.options.sections) this.runnerBytes(`section_end:${this.timestamp()}:${name}\r${ANSI.clear}`);
    const started = this.sectionStarts.get(name);
    if (started !== undefined) {
      this.sectionStarts.delete(name);
      this.options.onSection?.(name, (performance.now() - started) / 1000);
    }
  }

  private runnerLine(prefix: string, text: string): void {
    this.flush();
    // gitlab-runner 13 ends the line, then resets; 18 (whose format timestamps are) resets first.
    this.runnerBytes(this.runner ? `${prefix}${text}${ANSI.reset}\n` : `${prefix}${text}\n${ANSI.reset}`);
  }

  /** The runner's own bytes (lines, section markers): masked, on the runner's stream. */
  private runnerBytes(text: string): void {
    const masked = this.masker.write(this.patterns.write(Buffer.from(text)));
    const pattern = this.patterns.flush();
    const tail = pattern.length === 0 ? pattern : this.masker.write(pattern);
    const held = this.masker.flush();
    this.out(Buffer.concat([masked, tail, held]), this.runner);
  }

  /** Timestamped when asked for, then limited. */
  private out(bytes: Buffer, stream: LineTimestamper | null): void {
    if (bytes.length === 0) return;
    this.emit(stream ? stream.write(bytes) : bytes);
  }

  private timestamp(): number {
    return Math.floor(this.now().getTime() / 1000);
  }

  private emit(bytes: Buffer): void {
    if (bytes.length === 0 || this.limitReached || this.closed) return;
    const capacity = this.options.limitBytes - this.written;
    if (bytes.length >= capacity) {
      const head = bytes.subarray(0, Math.max(0, capacity));
      this.limitReached = true;
      const message = Buffer.from(
        `\n${ANSI.boldYellow}Job's log exceeded limit of ${this.options.limitBytes} bytes.\nJob execution will continue but no more output will be collected.${ANSI.reset}\n`,
      );
      this.written += head.length + message.length;
      this.options.sink(Buffer.concat([head, message]));
      return;
    }
    this.written += bytes.length;
    this.options.sink(bytes);
  }
}
