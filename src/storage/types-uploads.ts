import type { Readable } from 'node:stream';

/**
 * Files users upload to keep (avatars, attachments), under the data directory. A key is a
 * relative path of segments the caller has already made safe (no `..`, no separators).
 */
export interface UploadBlobs {
  /** The first `length` bytes of a received file (for telling its type by content). */
  head(sourcePath: string, length: number): Promise<Buffer>;
  /** The first `length` bytes of a kept file (empty when there is none). */
  keptHead(key: readonly string[], length: number): Promise<Buffer>;
  /** Moves a received file to `key`; with `replaceDirectory` whatever the key's directory held goes first. */
  keep(sourcePath: string, key: readonly string[], options?: { replaceDirectory?: boolean }): Promise<void>;
  /**
   * Removes the directory `key` and what it holds (nothing when there is none); with `except`,
   * only its other entries, keeping that one.
   */
  removeDirectory(key: readonly string[], options?: { except?: string }): Promise<void>;
  /** The kept file as a stream with its size, or undefined when there is none. */
  open(key: readonly string[]): Promise<{ stream: Readable; size: number } | undefined>;
}
