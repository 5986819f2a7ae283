import type { Readable } from 'node:stream';

/** One "<old> <new> <ref>" command of a receive-pack request. */
export interface RefCommand {
  ref: string;
  before: string;
  after: string;
}

export interface ReceiveCommands {
  commands: RefCommand[];
  /** Every byte read off the stream; it must reach git-receive-pack before the rest. */
  head: Buffer;
}

/** A push with more command bytes than this is refused rather than buffered. */
const MAX_COMMAND_BYTES = 4 * 1024 * 1024;

const COMMAND = /^([0-9a-f]{40,64}) ([0-9a-f]{40,64}) (\S+)$/;

export class MalformedPushError extends Error {}

/**
 * Result of scanning pkt-lines: the commands and where the command list ended, or null when
 * more bytes are needed. Commands may sit inside a push certificate; any pkt-line shaped
 * like a command before the first flush counts.
 */
export function scanCommands(buffer: Buffer): RefCommand[] | null {
  const commands: RefCommand[] = [];
  let offset = 0;
  for (;;) {
    if (buffer.length < offset + 4) return null;
    const lengthText = buffer.toString('latin1', offset, offset + 4);
    if (!/^[0-9a-f]{4}$/i.test(lengthText)) throw new MalformedPushError('invalid pkt-line length');
    const length = Number.parseInt(lengthText, 16);
    if (length === 0) return commands;
    if (length < 4) throw new MalformedPushError('unexpected special pkt-line in the command list');
    if (buffer.length < offset + length) return null;
    const payload = buffer.subarray(offset + 4, offset + length);
    const nul = payload.indexOf(0);
    const line = payload.toString('utf8', 0, nul >= 0 ? nul : payload.length).replace(/\n$/, '');
    const match = COMMAND.exec(line);
    if (match) commands.push({ before: match[1]!, after: match[2]!, ref: match[3]! });
    offset += length;
  }
}

/** Reads the command list off the start of a receive-pack body, leaving the pack in the stream. */
export function readReceiveCommands(stream: Readable): Promise<ReceiveCommands> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = (): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      total += chunk.length;
      const head = Buffer.concat(chunks);
      let commands: RefCommand[] | null;
      try {
        commands = scanCommands(head);
      } catch (error) {
        cleanup();
        reject(error as Error);
        return;
      }
      if (commands === null && total <= MAX_COMMAND_BYTES) return;
      cleanup();
      stream.pause();
      if (commands === null) reject(new MalformedPushError('the command list is too long'));
      else resolve({ commands, head });
    };
    const onEnd = (): void => {
      cleanup();
      const head = Buffer.concat(chunks);
      try {
        const commands = scanCommands(head);
        if (commands === null) reject(new MalformedPushError('the request ended inside the command list'));
        else resolve({ commands, head });
      } catch (error) {
        reject(error as Error);
      }
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}
