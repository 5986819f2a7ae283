import type { TraceAppendResult } from './types-blobs.ts';

/**
 * A trace grows at its end only: bytes offered at any other offset than the stored size are
 * refused with that size (the runner's 416), from which the runner resends. Undefined: the
 * offset is the end, the bytes may be appended.
 */
export function appendRefusal(offset: number, storedSize: number): Extract<TraceAppendResult, { conflict: number }> | undefined {
  return offset === storedSize ? undefined : { conflict: storedSize };
}
