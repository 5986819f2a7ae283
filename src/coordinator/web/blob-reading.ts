import type { Readable } from 'node:stream';

/** What a page reads of a blob: at most `budget` bytes, then the stream is closed (git stops). */
export async function readPrefix(stream: Readable, budget: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      const room = budget - length;
      if (buffer.length >= room) {
        chunks.push(buffer.subarray(0, room));
        length = budget;
        break;
      }
      chunks.push(buffer);
      length += buffer.length;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks, length);
}

/** Git's own test for binary content: a NUL byte in the first 8,000 bytes. */
export function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8000).includes(0);
}
