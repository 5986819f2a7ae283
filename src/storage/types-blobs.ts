/** Job traces and artifact files: bytes kept outside the relational tables' rows. */
import type { Readable } from 'node:stream';

export type TraceAppendResult = { size: number } | { conflict: number };

/** A byte range; `end` exclusive, absent = to the end. */
export interface ByteRange {
  start: number;
  end?: number;
}

/**
 * A job's log, append-only and addressed by byte offset (the runner's `Content-Range`).
 * Implementations: files under `<dataDir>/traces/` (one coordinator) and chunks in the
 * database (several coordinators sharing one PostgreSQL).
 */
export interface TraceStore {
  /**
   * Appends `bytes` when `offset` equals the current size: answers the new size; otherwise
   * writes nothing and answers `{conflict: currentSize}` (the runner's 416). Durable once it
   * answers. Concurrent appends at one offset: one wins, the other gets the conflict.
   */
  append(jobId: number, offset: number, bytes: Uint8Array): Promise<TraceAppendResult>;
  /** Bytes stored so far; 0 when there is no trace. */
  size(jobId: number): Promise<number>;
  /** The stored bytes (of `range`), streamed; undefined when there is no trace. */
  read(jobId: number, range?: ByteRange): Promise<Readable | undefined>;
  /** `crc32:%08x` of the whole trace (the runner's checksum format); undefined when there is no trace. */
  checksum(jobId: number): Promise<string | undefined>;
  remove(jobId: number): Promise<void>;
}

export interface ArtifactLocation {
  projectId: number;
  jobId: number;
  /** A plain file name (no directories). */
  fileName: string;
}

export interface StoredArtifactFile {
  /** Relative to the data directory: `artifacts/<project>/<job>/<file>`. */
  path: string;
  size: number;
  sha256: string;
}

/** One zip member, checked: absolute paths, `..` and symlinks are `unsafe` and never served. */
export interface ZipMember {
  path: string;
  kind: 'file' | 'directory' | 'unsafe';
  size: number;
  compressedSize: number;
  crc32: number;
  mode: number;
  modifiedAt: string | null;
}

/** Thrown by `ArtifactStore.write` when the stream passes the size limit (nothing is kept). */
export class ArtifactTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`artifact larger than ${limit} bytes`);
    this.name = 'ArtifactTooLargeError';
  }
}

/** Artifact files under `<dataDir>/artifacts/`. Reads and writes stream; nothing is held whole in memory. */
export interface ArtifactStore {
  /**
   * Streams `source` into the file for `location` (through a temporary file, renamed when
   * complete and flushed, so a reader never sees a partial file), counting bytes and
   * computing the SHA-256 on the way. Past `maxBytes` it stops reading, removes what it
   * wrote and throws ArtifactTooLargeError.
   */
  write(location: ArtifactLocation, source: Readable, options: { maxBytes: number }): Promise<StoredArtifactFile>;
  /** The file's bytes (of `range`); undefined when it does not exist. */
  read(path: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | undefined>;
  /** Removes the file and its job directory when empty; a missing file is fine. */
  remove(path: string): Promise<void>;
  /** Every member of a zip file, read from its central directory. */
  listZipMembers(path: string): Promise<ZipMember[]>;
  /**
   * Streams one safe member (found through the central directory, inflated on the way);
   * undefined when the archive has no such file or the member is unsafe.
   */
  openZipMember(path: string, memberPath: string): Promise<{ stream: Readable; size: number } | undefined>;
}
