/**
 * The job log kept valid UTF-8 as gitlab-runner's buffer keeps it (its replacement encoder after
 * the masking): each byte that does not begin a valid sequence becomes U+FFFD, Go's way (one
 * replacement a byte, where a decoder may give one for a whole broken sequence). A sequence
 * split across writes is held until its last byte comes, or the stream pauses.
 */
import { isUtf8 } from 'node:buffer';

const REPLACEMENT = Buffer.from([0xef, 0xbf, 0xbd]);

/** The bytes a sequence beginning with `lead` has, and the range of its second byte; null: no lead byte. */
function sequence(lead: number): { length: number; low: number; high: number } | null {
  if (lead < 0x80) return { length: 1, low: 0, high: 0 };
  if (lead >= 0xc2 && lead <= 0xdf) return { length: 2, low: 0x80, high: 0xbf };
  if (lead === 0xe0) return { length: 3, low: 0xa0, high: 0xbf };
  if (lead === 0xed) return { length: 3, low: 0x80, high: 0x9f };
  if (lead >= 0xe1 && lead <= 0xef) return { length: 3, low: 0x80, high: 0xbf };
  if (lead === 0xf0) return { length: 4, low: 0x90, high: 0xbf };
  if (lead === 0xf4) return { length: 4, low: 0x80, high: 0x8f };
  if (lead >= 0xf1 && lead <= 0xf3) return { length: 4, low: 0x80, high: 0xbf };
  return null;
}

/** How many bytes of a valid sequence start at `index`: its length, 0 for none, -1 when the input ends inside one. */
function validAt(input: Buffer, index: number): number {
  const shape = sequence(input[index]!);
  if (!shape) return 0;
  for (let offset = 1; offset < shape.length; offset++) {
    if (index + offset >= input.length) return -1;
    const byte = input[index + offset]!;
    const [low, high] = offset === 1 ? [shape.low, shape.high] : [0x80, 0xbf];
    if (byte < low || byte > high) return 0;
  }
  return shape.length;
}

export class Utf8Repair {
  private held: Buffer = Buffer.alloc(0);

  write(chunk: Buffer): Buffer {
    const input = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    this.held = Buffer.alloc(0);
    if (isUtf8(input)) return input;
    const out: Buffer[] = [];
    let kept = 0;
    let index = 0;
    while (index < input.length) {
      if (input[index]! < 0x80) {
        index++;
        continue;
      }
      const length = validAt(input, index);
      if (length > 0) {
        index += length;
        continue;
      }
      out.push(input.subarray(kept, index));
      if (length < 0) {
        this.held = Buffer.from(input.subarray(index));
        return Buffer.concat(out);
      }
      out.push(REPLACEMENT);
      index++;
      kept = index;
    }
    out.push(input.subarray(kept));
    return Buffer.concat(out);
  }

  /** What is held (the start of a sequence whose end never came): one replacement a byte. */
  flush(): Buffer {
    const held = this.held;
    this.held = Buffer.alloc(0);
    return Buffer.concat(Array.from(held, () => REPLACEMENT));
  }
}
