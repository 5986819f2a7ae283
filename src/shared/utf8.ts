const strict = new TextDecoder('utf-8', { fatal: true });

/**
 * `bytes` as text, or null when they are not UTF-8: a file name read as bytes, whose lossy
 * decoding (U+FFFD for each bad byte) would name another file or none.
 */
export function utf8Text(bytes: Uint8Array): string | null {
  try {
    return strict.decode(bytes);
  } catch {
    return null;
  }
}
