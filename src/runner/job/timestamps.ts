/**
 * gitlab-runner's timestamped log lines (`FF_TIMESTAMPS`, runner 18.7+; format in
 * src/shared/log-lines.ts), one writer per stream: bytes in, prefixed lines out. A new line
 * starts at every `\n`; the last `\r` of a write without `\n` also ends a line (progress bars
 * show up live), the next one continuing it (`+`); a partial line is held until its end, at
 * most 8 KiB, then written as a line of its own and continued.
 */
import { performance } from 'node:perf_hooks';

const NEWLINE = Buffer.from('\n');
const LF = 0x0a;
const CR = 0x0d;
/** What a partial line may hold before it is written anyway (gitlab-runner's `bufSize`). */
const HELD_LINE_LIMIT = 8 * 1024;

/** `2026-11-22T08:00:00.123456Z`: UTC with microseconds, always 27 characters. */
export function microsecondTime(epochMs: number = performance.timeOrigin + performance.now()): string {
  const whole = Math.floor(epochMs);
  const micros = Math.floor((epochMs - Math.floor(epochMs / 1000) * 1000) * 1000);
  return `${new Date(whole).toISOString().slice(0, 19)}.${String(micros).padStart(6, '0')}Z`;
}

export class LineTimestamper {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private continues = false;
  private readonly stream: string;

  constructor(stream: number, output: 'O' | 'E' = 'O', private readonly clock: () => string = () => microsecondTime()) {
    this.stream = `${stream.toString(16).padStart(2, '0')}${output}`;
  }

  /** The prefixed bytes `data` completes (maybe none, while a line is partial). */
  write(data: Buffer): Buffer {
    const out: Buffer[] = [];
    let offset = 0;
    for (let end = data.indexOf(LF, offset); end >= 0; end = data.indexOf(LF, offset)) {
      this.startLine(out);
      out.push(data.subarray(offset, end + 1));
      offset = end + 1;
    }
    let rest = data.subarray(offset);
    const lastCr = rest.lastIndexOf(CR);
    if (lastCr >= 0) {
      this.startLine(out);
      out.push(rest.subarray(0, lastCr + 1), NEWLINE);
      this.continues = true;
      rest = rest.subarray(lastCr + 1);
    }
    if (rest.length > 0) this.hold(rest, out);
    return out.length === 1 ? out[0] : Buffer.concat(out);
  }

  /** Ends a partial line (with `\n`, as gitlab-runner's Close). */
  close(): Buffer {
    if (this.heldBytes === 0) return Buffer.alloc(0);
    const line = Buffer.concat([...this.held, NEWLINE]);
    this.held = [];
    this.heldBytes = 0;
    return line;
  }

  /** Begins a line in `out`: the held partial line (its prefix included) or a fresh prefix. */
  private startLine(out: Buffer[]): void {
    if (this.heldBytes > 0) {
      out.push(...this.held);
      this.held = [];
      this.heldBytes = 0;
    } else {
      out.push(this.prefix());
    }
  }

  private hold(part: Buffer, out: Buffer[]): void {
    if (this.heldBytes + part.length > HELD_LINE_LIMIT) {
      this.startLine(out);
      out.push(part, NEWLINE);
      this.continues = true;
      return;
    }
    if (this.heldBytes === 0) this.held.push(this.prefix());
    this.held.push(Buffer.from(part));
    this.heldBytes += part.length;
  }

  private prefix(): Buffer {
    const prefix = Buffer.from(`${this.clock()} ${this.stream}${this.continues ? '+' : ' '}`);
    this.continues = false;
    return prefix;
  }
}
