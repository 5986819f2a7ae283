import type { Readable } from 'node:stream';
import type { ArtifactLocation, ArtifactStore, ByteRange, StoredArtifactFile, TraceAppendResult, TraceStore, ZipIndexLimits, ZipMember, ZipMemberLocation } from '../../../storage/types-blobs.ts';

/** Told the bytes each accepted trace append and each stored artifact file adds. */
export interface BlobObserver {
  traceBytesAppended(bytes: number): void;
  artifactBytesStored(bytes: number): void;
}

/** A trace store that reports the bytes of every append it accepted (a conflict adds none). */
export class CountingTraceStore implements TraceStore {
  constructor(
    private readonly inner: TraceStore,
    private readonly observer: Pick<BlobObserver, 'traceBytesAppended'>,
  ) {}

  async append(jobId: number, offset: number, bytes: Uint8Array): Promise<TraceAppendResult> {
    const result = await this.inner.append(jobId, offset, bytes);
    if ('size' in result) this.observer.traceBytesAppended(bytes.length);
    return result;
  }

  size(jobId: number): Promise<number> {
    return this.inner.size(jobId);
  }

  read(jobId: number, range?: ByteRange): Promise<Readable | undefined> {
    return this.inner.read(jobId, range);
  }

  checksum(jobId: number): Promise<string | undefined> {
    return this.inner.checksum(jobId);
  }

  remove(jobId: number): Promise<void> {
    return this.inner.remove(jobId);
  }
}

/** An artifact store that reports the size of every file it stored whole. */
export class CountingArtifactStore implements ArtifactStore {
  constructor(
    private readonly inner: ArtifactStore,
    private readonly observer: Pick<BlobObserver, 'artifactBytesStored'>,
  ) {}

  async write(location: ArtifactLocation, source: Readable, options: { maxBytes: number; signal?: AbortSignal }): Promise<StoredArtifactFile> {
    const stored = await this.inner.write(location, source, options);
    this.observer.artifactBytesStored(stored.size);
    return stored;
  }

  read(path: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | undefined> {
    return this.inner.read(path, range);
  }

  remove(path: string): Promise<void> {
    return this.inner.remove(path);
  }

  listZipMembers(path: string, options: { limits: ZipIndexLimits; signal?: AbortSignal }): Promise<ZipMember[]> {
    return this.inner.listZipMembers(path, options);
  }

  openZipMember(path: string, location: ZipMemberLocation, options?: { signal?: AbortSignal }): Promise<{ stream: Readable; size: number }> {
    return this.inner.openZipMember(path, location, options);
  }
}
