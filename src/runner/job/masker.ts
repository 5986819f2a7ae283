/**
 * Replaces every masked value with `[MASKED]` in a byte stream (reference §7.5), also when a
 * value arrives split across two writes: bytes that could still be the start of a value are
 * held back until the next write (or `flush`) decides. At each position the longest value
 * that matches wins, so a value that is a prefix of another never leaves the other's tail.
 */
const MASK = Buffer.from('[MASKED]');

export class StreamMasker {
  private readonly values: Buffer[];
  private readonly firstBytes: Set<number>;
  private pending: Buffer = Buffer.alloc(0);

  constructor(secrets: readonly string[]) {
    const unique = [...new Set(secrets.filter((secret) => secret.length > 0))];
    // Longest first: the first full match at a position is the longest one.
    this.values = unique.map((secret) => Buffer.from(secret)).sort((a, b) => b.length - a.length);
    this.firstBytes = new Set(this.values.map((value) => value[0]));
  }

  /** Masked bytes that are safe to emit now. */
  write(chunk: Buffer): Buffer {
    if (this.values.length === 0) return chunk;
    const input = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    const out: Buffer[] = [];
    let emittedUpTo = 0;
    let index = 0;
    while (index < input.length) {
      if (!this.firstBytes.has(input[index])) {
        index++;
        continue;
      }
      const match = this.matchAt(input, index);
      if (match === 'partial') {
        out.push(input.subarray(emittedUpTo, index));
        this.pending = Buffer.from(input.subarray(index));
        return Buffer.concat(out);
      }
      if (match > 0) {
        out.push(input.subarray(emittedUpTo, index), MASK);
        index += match;
        emittedUpTo = index;
        continue;
      }
      index++;
    }
    out.push(input.subarray(emittedUpTo));
    return Buffer.concat(out);
  }

  /** Whatever is held back, masked as far as it goes (the stream ended or paused). */
  flush(): Buffer {
    const rest = this.pending;
    this.pending = Buffer.alloc(0);
    if (rest.length === 0) return rest;
    const out: Buffer[] = [];
    let emittedUpTo = 0;
    let index = 0;
    while (index < rest.length) {
      const match = this.matchAt(rest, index, true);
      if (typeof match === 'number' && match > 0) {
        out.push(rest.subarray(emittedUpTo, index), MASK);
        index += match;
        emittedUpTo = index;
      } else {
        index++;
      }
    }
    out.push(rest.subarray(emittedUpTo));
    return Buffer.concat(out);
  }

  /**
   * Length of the longest value matching at `index`, 0 for none, or `partial` when the input
   * ends inside a value that may still match (or inside a prefix of a longer value that may).
   */
  private matchAt(input: Buffer, index: number, final = false): number | 'partial' {
    const available = input.length - index;
    let longestFull = 0;
    let couldGrow = false;
    for (const value of this.values) {
      if (value.length <= available) {
        if (longestFull === 0 && input.compare(value, 0, value.length, index, index + value.length) === 0) longestFull = value.length;
      } else if (!final && input.compare(value, 0, available, index, input.length) === 0) {
        couldGrow = true;
      }
    }
    // A longer value might still complete: wait rather than mask the shorter one too early.
    if (couldGrow) return 'partial';
    return longestFull;
  }
}
