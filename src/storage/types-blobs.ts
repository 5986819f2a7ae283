/** Job traces and artifact files: bytes kept outside the relational tables' rows. */
import type { Readable } from 'node:stream';
import { GantryError } from '../shared/errors.ts';

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

/** Where a member's bytes are in its archive and how they are stored: enough to open it without reading the central directory. */
export interface ZipMemberLocation {
  /** Offset of the member's local file header. */
  headerOffset: number;
  /** 0 stored, 8 deflated (members compressed otherwise are `unsafe`). */
  compression: number;
  compressedSize: number;
  /** Uncompressed size: the stream is checked to have exactly this many bytes. */
  size: number;
}

/**
 * One zip member, checked: absolute paths, `..`, backslashes, NUL, symlinks, encrypted or
 * unsupported members and every member of a repeated name are `unsafe` and never served.
 */
export interface ZipMember extends ZipMemberLocation {
  path: string;
  kind: 'file' | 'directory' | 'unsafe';
  crc32: number;
  mode: number;
  modifiedAt: string | null;
}

/**
 * Bounds of a zip's central directory (user-controlled: a member count in its last bytes, and
 * records of up to 192 KiB each). Past either, the archive is refused before it is walked
 * further.
 */
export interface ZipIndexLimits {
  maxMembers: number;
  /** Bytes of central directory records (46 bytes each plus name, extra field and comment). */
  maxDirectoryBytes: number;
}

export const DEFAULT_ZIP_INDEX_LIMITS: ZipIndexLimits = { maxMembers: 200_000, maxDirectoryBytes: 64 * 1024 * 1024 };

/** An archive over its ZipIndexLimits (nothing of it is indexed). */
export class ZipIndexLimitError extends GantryError {
  constructor(readonly limit: 'members' | 'directory bytes', readonly maximum: number) {
    super('GANTRY_E_ARTIFACT_ARCHIVE_TOO_LARGE', `the archive has more than ${maximum} ${limit === 'members' ? 'members' : 'bytes of central directory'}, the most an artifacts archive may have`);
    this.name = 'ZipIndexLimitError';
  }
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
   * wrote and throws ArtifactTooLargeError; when `signal` aborts, the same with its reason.
   */
  write(location: ArtifactLocation, source: Readable, options: { maxBytes: number; signal?: AbortSignal }): Promise<StoredArtifactFile>;
  /** The file's bytes (of `range`); undefined when it does not exist. */
  read(path: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | undefined>;
  /** Removes the file and its job directory when empty; a missing file is fine. */
  remove(path: string): Promise<void>;
  /**
   * Every member of a zip file, read from its central directory in one pass within `limits`
   * (ZipIndexLimitError past them); stops with the signal's reason when it aborts.
   */
  listZipMembers(path: string, options: { limits: ZipIndexLimits; signal?: AbortSignal }): Promise<ZipMember[]>;
  /**
   * Streams the member at `location` (as listZipMembers found it: no walk of the central
   * directory), inflated on the way; the stream is destroyed when `signal` aborts.
   */
  openZipMember(path: string, location: ZipMemberLocation, options?: { signal?: AbortSignal }): Promise<{ stream: Readable; size: number }>;
}
