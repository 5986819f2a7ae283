import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { GantryError } from '../../shared/errors.ts';

/**
 * A null byte in the path or in a parameter is refused with 400 before anything reads it, as
 * GitLab's HandleMalformedStrings middleware does: no name, path, ref or token holds one,
 * PostgreSQL cannot store one in text (it answered 500), and git and the file system treat
 * it as the end of a string. Bodies are checked once parsed (JSON, forms, multipart fields
 * and file names); a text body, or one handed over as a stream (package uploads), is not
 * parameters and is left alone.
 */
export function nullByteInPathOrQuery(request: FastifyRequest): GantryError | undefined {
  // The path and query decode a null byte only from `%00` (the HTTP parser refuses a raw one): most URLs need no walk.
  if (!request.url.includes('%00') && !request.url.includes('\0')) return undefined;
  return holdsNullByte(request.params) || holdsNullByte(request.query) ? refusal() : undefined;
}

export function nullByteInBody(request: FastifyRequest): GantryError | undefined {
  if (typeof request.body !== 'object' || request.body instanceof Readable) return undefined;
  return holdsNullByte(request.body) ? refusal() : undefined;
}

const refusal = () => new GantryError('GANTRY_E_REQUEST_MALFORMED', 'the path or a parameter holds a null byte');

/** Walks strings, arrays and objects (keys too) without recursion: a body may nest deeply. */
function holdsNullByte(root: unknown): boolean {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (value.includes('\0')) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\0')) return true;
        pending.push(item);
      }
    }
  }
  return false;
}
