import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/shared/logger.ts';

/** A logger whose JSON lines are kept, parsed, in `lines`. */
export function recordingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ destination }), lines };
}
