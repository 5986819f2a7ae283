import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { GantryError } from '../../../../shared/errors.ts';
import type { ArtifactStore, TraceStore } from '../../../../storage/types-blobs.ts';
import type { CiJobsStore, JobArtifactRecord, JobArtifactsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { Actor } from '../../access/permissions.ts';
import type { ArchiveMembers } from './archive-members.ts';
import { availableArchive, isValidArtifactPath } from './artifact-rules.ts';
import type { JobsService } from './jobs.ts';

/** Bytes to send and how to name them. */
export interface JobDownload {
  stream: Readable;
  size: number;
  fileName: string;
}

export interface JobArtifactsServiceDeps {
  jobs: Pick<JobsService, 'readable' | 'build'>;
  jobsStore: Pick<CiJobsStore, 'latestSuccessfulByRefAndName'>;
  jobArtifacts: Pick<JobArtifactsStore, 'find' | 'listEntries'>;
  traces: Pick<TraceStore, 'read' | 'size'>;
  artifactFiles: Pick<ArtifactStore, 'read'>;
  members: Pick<ArchiveMembers, 'find' | 'open'>;
  /** Told when someone reads a running job's log (the runner is then asked for updates more often). */
  traceWatch?: { watched(jobId: number): void };
  clock?: () => number;
}

/** A member of an archive directory: a file, or a directory whether or not the zip lists one. */
export interface ArchiveChild {
  name: string;
  directory: boolean;
  size: number;
}

/** Index records read per query while listing a directory. */
const DIRECTORY_BATCH = 200;

/** Traces and artifacts of jobs, streamed from their stores; never read whole into memory. */
export class JobArtifactsService {
  private readonly clock: () => number;

  constructor(private readonly deps: JobArtifactsServiceDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** The raw trace; 404 (spec 02) while the job has none. */
  async trace(projectRef: string, actor: Actor, jobId: number): Promise<{ stream: Readable; size: number; jobId: number }> {
    const target = await this.deps.jobs.readable(projectRef, actor);
    const job = await this.deps.jobs.build(target.project, jobId);
    if (job.status === 'running') this.deps.traceWatch?.watched(job.id);
    const size = await this.deps.traces.size(job.id);
    // Up to the size measured: a running job's trace grows meanwhile, and Content-Length says `size`.
    const stream = size > 0 ? await this.deps.traces.read(job.id, { start: 0, end: size }) : undefined;
    if (!stream) throw new GantryError('GANTRY_E_TRACE_NOT_FOUND');
    return { stream, size, jobId: job.id };
  }

  /**
   * Bytes `start` up to `start + maxBytes` (at most) of the trace, for a reader following it (the
   * job page): `stream` is null when nothing lies past `start` yet. Never reads the bytes before `start`.
   */
  async traceFrom(projectRef: string, actor: Actor, jobId: number, start: number, maxBytes: number): Promise<{ stream: Readable | null; start: number; end: number; size: number; status: JobRecord['status'] }> {
    const target = await this.deps.jobs.readable(projectRef, actor);
    const job = await this.deps.jobs.build(target.project, jobId);
    if (job.status === 'running') this.deps.traceWatch?.watched(job.id);
    const size = await this.deps.traces.size(job.id);
    const end = Math.min(size, start + maxBytes);
    const stream = end > start ? ((await this.deps.traces.read(job.id, { start, end })) ?? null) : null;
    return { stream, start, end: stream ? end : start, size, status: job.status };
  }

  /** The job's artifacts archive; 404 when there is none (or it expired, or was erased). */
  async archive(projectRef: string, actor: Actor, jobId: number): Promise<JobDownload> {
    const target = await this.deps.jobs.readable(projectRef, actor);
    return this.send(await this.archiveOf(await this.deps.jobs.build(target.project, jobId)));
  }

  /** The archive of the newest successful job named `jobName` on `ref` (a branch or tag). */
  async archiveOfRef(projectRef: string, actor: Actor, ref: string, jobName: string): Promise<JobDownload> {
    return this.send(await this.archiveOf(await this.latestOfRef(projectRef, actor, ref, jobName)));
  }

  /** One file of the archive, found through the member index and inflated as it streams. */
  async archiveFile(projectRef: string, actor: Actor, jobId: number, path: string, signal?: AbortSignal): Promise<JobDownload> {
    const target = await this.deps.jobs.readable(projectRef, actor);
    return this.memberOf(await this.deps.jobs.build(target.project, jobId), path, signal);
  }

  /**
   * The direct children of a directory of the archive (`''` or a path ending in `/`), by name in
   * byte order, at most `limit`, from the member index. One level only: a child directory's
   * subtree is skipped with one indexed query past it (every path under `dir/` sorts before
   * `dir0`), so a deep tree costs a query per child directory, not a read of its members.
   * `complete` is false when the limit cut the listing; `exists`, whether the index has the
   * directory (listed itself, or anything under it).
   */
  async archiveDirectory(projectRef: string, actor: Actor, jobId: number, directory: string, limit: number): Promise<{ children: ArchiveChild[]; complete: boolean; exists: boolean }> {
    const target = await this.deps.jobs.readable(projectRef, actor);
    const archive = await this.archiveOf(await this.deps.jobs.build(target.project, jobId));
    if (directory !== '' && (!directory.endsWith('/') || !isValidArtifactPath(directory))) throw new GantryError('GANTRY_E_ARTIFACT_PATH_INVALID');
    const children: ArchiveChild[] = [];
    let exists = false;
    let from: string | undefined;
    for (;;) {
      const rows = await this.deps.jobArtifacts.listEntries(archive.id, directory, { offset: 0, limit: DIRECTORY_BATCH }, from);
      let next: string | undefined;
      if (rows.length > 0) exists = true;
      for (const row of rows) {
        const rest = row.path.slice(directory.length);
        const slash = rest.indexOf('/');
        const name = slash >= 0 ? rest.slice(0, slash) : rest;
        if (name === '' || children.at(-1)?.name === name) continue;
        if (children.length >= limit) return { children, complete: false, exists };
        children.push({ name, directory: slash >= 0, size: slash >= 0 ? 0 : row.size });
        // '0' follows '/': the first path past this directory's whole subtree.
        if (slash >= 0) {
          next = `${directory}${name}0`;
          break;
        }
      }
      if (next === undefined) {
        if (rows.length < DIRECTORY_BATCH) return { children, complete: true, exists };
        // A batch of files only: go on after its last one (read again, and skipped as already listed).
        next = rows.at(-1)!.path;
      }
      from = next;
    }
  }

  /** One file of the archive of the newest successful job named `jobName` on `ref`. */
  async archiveFileOfRef(projectRef: string, actor: Actor, ref: string, jobName: string, path: string, signal?: AbortSignal): Promise<JobDownload> {
    return this.memberOf(await this.latestOfRef(projectRef, actor, ref, jobName), path, signal);
  }

  private async latestOfRef(projectRef: string, actor: Actor, ref: string, jobName: string): Promise<JobRecord> {
    const target = await this.deps.jobs.readable(projectRef, actor);
    const job = await this.deps.jobsStore.latestSuccessfulByRefAndName(target.project.id, ref, jobName);
    if (!job) throw new GantryError('GANTRY_E_JOB_NOT_FOUND');
    return job;
  }

  private async memberOf(job: JobRecord, path: string, signal: AbortSignal | undefined): Promise<JobDownload> {
    const archive = await this.archiveOf(job);
    if (!isValidArtifactPath(path)) throw new GantryError('GANTRY_E_ARTIFACT_PATH_INVALID');
    const entry = await this.deps.members.find(archive, path, signal);
    if (!entry || entry.kind !== 'file') throw new GantryError('GANTRY_E_ARTIFACT_NOT_FOUND');
    const member = await this.deps.members.open(archive, entry, signal);
    return { ...member, fileName: posix.basename(path) };
  }

  private async archiveOf(job: JobRecord): Promise<JobArtifactRecord> {
    const now = new Date(this.clock()).toISOString();
    const archive = availableArchive(job, await this.deps.jobArtifacts.find(job.id, 'archive'), now);
    if (!archive) throw new GantryError('GANTRY_E_ARTIFACT_NOT_FOUND');
    return archive;
  }

  private async send(archive: JobArtifactRecord): Promise<JobDownload> {
    const file = await this.deps.artifactFiles.read(archive.path);
    if (!file) throw new GantryError('GANTRY_E_ARTIFACT_NOT_FOUND');
    return { ...file, fileName: archive.file_name };
  }
}
