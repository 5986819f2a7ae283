/**
 * A stage container's attach stream read as the script's output, and the script's exit status
 * read from it. The daemon answers `wait` only once it has handled the container's exit (tens
 * of milliseconds after the output ends, more on the default bridge): the shell that reads
 * the script writes its status as its last line instead, behind a token no output can hold by
 * chance, and that line never reaches the job's output.
 */
import { randomBytes } from 'node:crypto';

/** A token of its own for each stage container. */
export function statusToken(): string {
  return `gantry-exit-status-${randomBytes(16).toString('hex')}`;
}

/**
 * The line set before the script (ahead of its `exec 2>&1`): on exit, the shell prints the
 * token and its status. In braces with stderr discarded, so CI_DEBUG_TRACE's xtrace does not
 * print it; printed in two halves, so a trace of it would not hold the token either.
 */
export function statusTrap(token: string): string {
  const half = Math.floor(token.length / 2);
  return `trap '{ printf "%s%s %d\\n" ${token.slice(0, half)} ${token.slice(half)} "$?"; } 2>/dev/null' EXIT`;
}

const HEADER_BYTES = 8;
const NEWLINE = 0x0a;
/** An exit status has at most 3 digits (0–255); a longer line after the token is output. */
const MAX_STATUS_DIGITS = 4;

/**
 * Docker's multiplexed frames (an 8-byte header: the stream, then the payload's length) to
 * `onOutput`, in order, without the status line, which `status` then answers. Without a
 * token (the shell prints no status), the output as it came.
 */
export class StageOutputReader {
  /** The status the shell printed; null until (unless) its line came. */
  status: number | null = null;
  private frames: Buffer = Buffer.alloc(0);
  /** Output held back because it may be the start of the status line. */
  private held: Buffer = Buffer.alloc(0);
  private readonly token: Buffer | null;

  constructor(
    token: string | null,
    private readonly onOutput: (chunk: Buffer) => void,
  ) {
    this.token = token === null ? null : Buffer.from(`${token} `);
  }

  push(chunk: Buffer): void {
    this.frames = this.frames.length === 0 ? chunk : Buffer.concat([this.frames, chunk]);
    while (this.frames.length >= HEADER_BYTES) {
      const size = this.frames.readUInt32BE(4);
      if (this.frames.length < HEADER_BYTES + size) return;
      const payload = this.frames.subarray(HEADER_BYTES, HEADER_BYTES + size);
      this.frames = this.frames.subarray(HEADER_BYTES + size);
      if (payload.length > 0) this.output(payload);
    }
  }

  /** The stream ended: what was held back was output after all. */
  end(): void {
    if (this.held.length > 0) this.onOutput(this.held);
    this.held = Buffer.alloc(0);
  }

  private output(payload: Buffer): void {
    const token = this.token;
    if (token === null || this.status !== null) {
      this.onOutput(payload);
      return;
    }
    const text = this.held.length === 0 ? payload : Buffer.concat([this.held, payload]);
    const at = text.indexOf(token);
    if (at >= 0) {
      const lineEnd = text.indexOf(NEWLINE, at);
      if (at > 0) this.onOutput(text.subarray(0, at));
      if (lineEnd < 0 && text.length - at <= token.length + MAX_STATUS_DIGITS) {
        this.held = text.subarray(at);
        return;
      }
      const end = lineEnd < 0 ? text.length : lineEnd + 1;
      const status = text.subarray(at + token.length, end).toString('latin1');
      this.held = Buffer.alloc(0);
      if (/^\d{1,3}\n$/.test(status)) this.status = Number(status.trimEnd());
      else this.onOutput(text.subarray(at, end));
      if (end < text.length) this.output(text.subarray(end));
      return;
    }
    const keep = partialTokenAtEnd(text, token);
    if (keep < text.length) this.onOutput(text.subarray(0, text.length - keep));
    this.held = text.subarray(text.length - keep);
  }

}

/** How many of `text`'s last bytes are `token`'s first ones. */
function partialTokenAtEnd(text: Buffer, token: Buffer): number {
  for (let length = Math.min(token.length - 1, text.length); length > 0; length -= 1) {
    if (text.subarray(text.length - length).equals(token.subarray(0, length))) return length;
  }
  return 0;
}
