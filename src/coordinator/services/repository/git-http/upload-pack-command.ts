import type { Readable } from 'node:stream';

/** `0014command=ls-refs\n`: the first pkt-line of a protocol v2 ref listing, and its length. */
const LS_REFS = Buffer.from('0014command=ls-refs\n', 'latin1');

/**
 * Reads the first bytes of a protocol v2 upload-pack request (until they can tell whether it
 * is `command=ls-refs`, or the body ended), leaving the rest in the stream, paused. Whatever
 * was read must reach git before the rest.
 */
export function readCommandHead(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const finish = (error?: Error): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onEnd);
      stream.pause();
      if (error) reject(error);
      else resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      total += chunk.length;
      if (total >= LS_REFS.length) finish();
    };
    const onEnd = (): void => finish();
    const onError = (error: Error): void => finish(error);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    // A client gone before its body ended: git then sees what came.
    stream.on('close', onEnd);
  });
}

/** Whether a request starting with `head` lists refs (`command=ls-refs`): no pack is made for it. */
export function listsRefs(head: Buffer): boolean {
  return head.length >= LS_REFS.length && head.subarray(0, LS_REFS.length).equals(LS_REFS);
}
