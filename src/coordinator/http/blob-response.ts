import { Readable } from 'node:stream';

/** Bytes git inspects to call content binary (a NUL among them). */
const BINARY_PROBE = 8000;

/**
 * Reads the first chunk of a stream before any header is sent, so a failing git process
 * still answers with a proper error; the returned stream replays that chunk.
 */
export async function withFirstChunk(source: Readable): Promise<{ head: Buffer; body: Readable }> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const first = await iterator.next();
  const head = first.done ? Buffer.alloc(0) : Buffer.from(first.value);
  async function* replay(): AsyncGenerator<Buffer> {
    if (first.done) return;
    yield head;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield Buffer.from(next.value);
    }
  }
  return { head, body: Readable.from(replay(), { objectMode: false }) };
}

export function looksBinary(head: Buffer): boolean {
  return head.subarray(0, BINARY_PROBE).includes(0);
}

/** A header value carrying UTF-8 text as raw bytes, as GitLab sends file names (Node writes latin1 strings byte for byte). */
export function headerText(value: string): string {
  return Buffer.from(value, 'utf8').toString('latin1');
}

/** `attachment; filename="x"` with an RFC 5987 form for names outside ASCII. */
export function contentDisposition(kind: 'inline' | 'attachment', fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return ascii === fileName ? `${kind}; filename="${fileName}"` : `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
