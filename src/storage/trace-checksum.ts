import CRC32 from 'crc-32';

/** CRC-32 (IEEE) of `bytes` continuing from `previous` (the CRC of what came before; 0 at the start), unsigned. */
export function continueCrc32(previous: number, bytes: Uint8Array): number {
  return CRC32.buf(bytes, previous | 0) >>> 0;
}

/** The runner's checksum format: `crc32:%08x`. */
export function formatTraceChecksum(crc: number): string {
  return `crc32:${(crc >>> 0).toString(16).padStart(8, '0')}`;
}
