import type { Readable } from 'node:stream';
import type { Logger } from '../../../../shared/logger.ts';
import { ZipIndexLimitError, type ArtifactStore, type ZipIndexLimits, type ZipMember } from '../../../../storage/types-blobs.ts';
import type { ArtifactEntryRecord, JobArtifactRecord, JobArtifactsStore } from '../../../../storage/types-ci-jobs.ts';

export interface ArchiveMembersDeps {
  jobArtifacts: Pick<JobArtifactsStore, 'findEntry' | 'replaceEntries'>;
  artifactFiles: Pick<ArtifactStore, 'listZipMembers' | 'openZipMember'>;
  limits: ZipIndexLimits;
  logger: Logger;
}

/** An entry whose location is known: it can be opened. */
export type LocatedEntry = ArtifactEntryRecord & { header_offset: number; compression: number };

/** Work shared by the requests waiting for it; aborted once none is left. */
interface SharedIndexing {
  done: Promise<void>;
  controller: AbortController;
  waiting: number;
}

/**
 * The member index of artifacts archives: built once, when the archive is uploaded, and kept
 * in the database beside the archive's record (the rows browsing already reads), each member
 * with the offset of its local header. One member is then a primary-key look-up and a read at
 * that offset, whatever the archive's size. Archives recorded before offsets were kept are
 * indexed again on their first member request, once (concurrent requests share that work).
 */
export class ArchiveMembers {
  private readonly indexing = new Map<number, SharedIndexing>();

  constructor(private readonly deps: ArchiveMembersDeps) {}

  /**
   * The records to keep for the zip at `path`: files and directories with their locations;
   * unsafe members (absolute, `..`, symlinks, repeated names...) are left out and logged.
   * Throws ZipIndexLimitError for an archive over the limits.
   */
  async index(path: string, jobId: number, signal?: AbortSignal): Promise<ArtifactEntryRecord[]> {
    const members = await this.deps.artifactFiles.listZipMembers(path, { limits: this.deps.limits, signal });
    const unsafe = members.filter((member) => member.kind === 'unsafe').length;
    if (unsafe > 0) this.deps.logger.info({ job: jobId, unsafe }, 'artifacts archive has unsafe members; they are never served');
    return members.flatMap((member) => (member.kind === 'unsafe' ? [] : [entryRecord(member, member.kind)]));
  }

  /** The member record of `path`, its location known; undefined when the archive has no such safe member. */
  async find(archive: JobArtifactRecord, path: string, signal?: AbortSignal): Promise<LocatedEntry | undefined> {
    let entry = await this.deps.jobArtifacts.findEntry(archive.id, path);
    if (entry && !isLocated(entry)) {
      try {
        await this.reindex(archive, signal);
      } catch (error) {
        // Uploaded before the limits were enforced: kept, downloadable whole, its members no longer served.
        if (!(error instanceof ZipIndexLimitError)) throw error;
        this.deps.logger.warn({ job: archive.job_id, err: error }, 'artifacts archive is over the member limits; its members are not served');
        return undefined;
      }
      entry = await this.deps.jobArtifacts.findEntry(archive.id, path);
    }
    return entry && isLocated(entry) ? entry : undefined;
  }

  /** Streams a file member found by `find`, inflated; destroyed when `signal` aborts. */
  open(archive: JobArtifactRecord, entry: LocatedEntry, signal?: AbortSignal): Promise<{ stream: Readable; size: number }> {
    const location = { headerOffset: entry.header_offset, compression: entry.compression, compressedSize: entry.compressed_size, size: entry.size };
    return this.deps.artifactFiles.openZipMember(archive.path, location, { signal });
  }

  /** Records the archive's members again, with their locations; requests for one archive share the walk. */
  private async reindex(archive: JobArtifactRecord, signal?: AbortSignal): Promise<void> {
    let shared = this.indexing.get(archive.id);
    if (!shared) {
      const controller = new AbortController();
      const done = this.index(archive.path, archive.job_id, controller.signal)
        .then((entries) => this.deps.jobArtifacts.replaceEntries(archive.id, entries))
        .finally(() => this.indexing.delete(archive.id));
      // Its waiters see a failure; when all of them left first, nobody does.
      done.catch(() => undefined);
      shared = { done, controller, waiting: 0 };
      this.indexing.set(archive.id, shared);
    }
    await waitShared(shared, signal);
  }
}

/** Waits for shared work as one of its requesters; the last one to leave stops it. */
async function waitShared(shared: SharedIndexing, signal: AbortSignal | undefined): Promise<void> {
  shared.waiting += 1;
  let onAbort: (() => void) | undefined;
  try {
    const left = new Promise<never>((_resolve, reject) => {
      onAbort = () => reject(signal?.reason);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
    await Promise.race([shared.done, left]);
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    shared.waiting -= 1;
    if (shared.waiting === 0) shared.controller.abort(signal?.reason);
  }
}

function isLocated(entry: ArtifactEntryRecord): entry is LocatedEntry {
  return entry.header_offset !== null && entry.compression !== null;
}

function entryRecord(member: ZipMember, kind: 'file' | 'directory'): ArtifactEntryRecord {
  return {
    path: member.path, kind, size: member.size, compressed_size: member.compressedSize, crc32: member.crc32, mode: member.mode,
    modified_at: member.modifiedAt, header_offset: member.headerOffset, compression: member.compression,
  };
}
