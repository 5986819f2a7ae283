import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { parseDuration } from '../../../../ci/durations.ts';
import { GantryError, invalidParam } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { ArtifactTooLargeError, ZipIndexLimitError, type ArtifactStore } from '../../../../storage/types-blobs.ts';
import type {
  ArtifactEntryRecord, ArtifactFileFormat, CiJobsStore, JobArtifactRecord, JobArtifactsStore, JobRecord,
} from '../../../../storage/types-ci-jobs.ts';
import type { ArchiveMembers } from '../pipelines/archive-members.ts';
import { DOTENV_LIMITS, dotenvTooBig, readDotenvReport } from './dotenv-reports.ts';
import type { JobTokenAccess } from './job-token-access.ts';

/** GitLab 13.x `Ci::JobArtifact::TYPE_AND_FORMAT_PAIRS`: every uploadable type and the one format it takes. */
export const ARTIFACT_TYPE_FORMATS = {
  archive: 'zip', metadata: 'gzip', trace: 'raw', junit: 'gzip', metrics: 'gzip', metrics_referee: 'gzip', network_referee: 'gzip',
  dotenv: 'gzip', cobertura: 'gzip', cluster_applications: 'gzip', lsif: 'zip', sast: 'raw', secret_detection: 'raw',
  dependency_scanning: 'raw', container_scanning: 'raw', dast: 'raw', license_management: 'raw', license_scanning: 'raw',
  accessibility: 'raw', codequality: 'raw', performance: 'raw', browser_performance: 'raw', load_performance: 'raw',
  terraform: 'raw', requirements: 'raw', coverage_fuzzing: 'raw', api_fuzzing: 'raw',
} as const satisfies Record<string, ArtifactFileFormat>;

export type UploadArtifactType = keyof typeof ARTIFACT_TYPE_FORMATS;
export const ARTIFACT_TYPES = Object.keys(ARTIFACT_TYPE_FORMATS) as UploadArtifactType[];
export const ARTIFACT_FORMATS = ['raw', 'zip', 'gzip'] as const satisfies readonly ArtifactFileFormat[];

const MiB = 1024 * 1024;
const EXTENSIONS: Record<ArtifactFileFormat, string> = { zip: '.zip', gzip: '.gz', raw: '' };

/** What the runner says about an upload (query parameters, or form fields before the file). */
export interface UploadParameters {
  artifact_type?: string;
  artifact_format?: string;
  expire_in?: string;
}

/** Checked parameters: the type and format pair GitLab accepts, `expire_in` parsable. */
export interface UploadOptions {
  fileType: UploadArtifactType;
  fileFormat: ArtifactFileFormat;
  /** Seconds from the upload; null never expires; undefined takes the instance default. */
  expiresInSeconds: number | null | undefined;
}

/** A running job allowed to upload, and the largest file it may send. */
export interface UploadTarget {
  job: JobRecord;
  maxBytes: number;
}

export interface ArtifactUploadsDeps {
  tokens: Pick<JobTokenAccess, 'runningJob'>;
  settings: { values(): Promise<{ max_artifacts_size: number; default_artifacts_expire_in: string }> };
  jobs: Pick<CiJobsStore, 'update'>;
  jobArtifacts: Pick<JobArtifactsStore, 'find' | 'save'>;
  artifactFiles: Pick<ArtifactStore, 'write' | 'read' | 'remove'>;
  members: Pick<ArchiveMembers, 'index'>;
  logger: Logger;
  clock?: () => number;
}

/**
 * `POST /jobs/:id/artifacts` (reference/runner-protocol.md §6.1): the job token is checked and
 * the size limit fixed before any byte of the body is read; the file streams to disk (never
 * held in memory), and zip archives get their member list recorded, unsafe members left out,
 * so single files are served from the index without reading the archive.
 */
export class ArtifactUploads {
  private readonly clock: () => number;

  constructor(private readonly deps: ArtifactUploadsDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** The job of `token` when it is job `jobId` and running (404/403 otherwise), with its size limit (`max_artifacts_size`, MB). */
  async authorize(jobId: number, token: string | undefined): Promise<UploadTarget> {
    const job = await this.deps.tokens.runningJob(jobId, token);
    const { max_artifacts_size: megabytes } = await this.deps.settings.values();
    // GitLab accepts a file only when `size < max_artifacts_size`.
    return { job, maxBytes: megabytes * MiB - 1 };
  }

  /** GitLab's defaults (archive, zip) and checks: 400 for an unknown type or format, a pair GitLab refuses, or an unreadable `expire_in`. */
  options(parameters: UploadParameters): UploadOptions {
    const type = parameters.artifact_type ?? 'archive';
    if (!Object.hasOwn(ARTIFACT_TYPE_FORMATS, type)) throw invalidParam('artifact_type', 'does not have a valid value');
    const format = parameters.artifact_format ?? 'zip';
    if (!(ARTIFACT_FORMATS as readonly string[]).includes(format)) throw invalidParam('artifact_format', 'does not have a valid value');
    const fileType = type as UploadArtifactType;
    if (ARTIFACT_TYPE_FORMATS[fileType] !== format) {
      throw new GantryError('GANTRY_E_VALIDATION_FAILED', 'Validation failed: Invalid file format with specified file type', {
        fields: { base: ['Invalid file format with specified file type'] },
      });
    }
    return { fileType, fileFormat: format as ArtifactFileFormat, expiresInSeconds: expiryOf(parameters.expire_in) };
  }

  /**
   * Streams `body` to the artifact store and records it. A job keeps its first upload of a
   * type, as GitLab 13.x's Ci::JobArtifacts::CreateService does: the same bytes again (a runner
   * retrying after a lost answer) succeed without change, other bytes are refused (400).
   * Past the limit: 413. A dotenv report is read into variables kept with it, or refused
   * (400) when GitLab would refuse it (dotenv-reports.ts). Nothing of a refused upload is
   * kept, nor of one whose `signal` aborted (the runner went away, the coordinator is closing)
   * while it was written or indexed.
   */
  async store(target: UploadTarget, options: UploadOptions, file: { fileName: string; body: Readable }, signal?: AbortSignal): Promise<JobArtifactRecord> {
    const { job, maxBytes } = target;
    const { fileType, fileFormat } = options;
    const location = { projectId: job.project_id, jobId: job.id, fileName: `${fileType}-${randomBytes(6).toString('hex')}${EXTENSIONS[fileFormat]}` };
    // A dotenv report is refused from its 5,120th byte on: no need to store the rest first.
    const dotenvLimit = fileType === 'dotenv' && DOTENV_LIMITS.size - 1 < maxBytes;
    let stored;
    try {
      stored = await this.deps.artifactFiles.write(location, file.body, { maxBytes: dotenvLimit ? DOTENV_LIMITS.size - 1 : maxBytes, signal });
    } catch (error) {
      if (error instanceof ArtifactTooLargeError && dotenvLimit) throw dotenvTooBig();
      if (error instanceof ArtifactTooLargeError) throw new GantryError('GANTRY_E_BODY_TOO_LARGE', `the artifact is over max_artifacts_size (${maxBytes + 1} bytes)`);
      throw error;
    }
    try {
      const existing = await this.deps.jobArtifacts.find(job.id, fileType);
      if (existing) {
        if (existing.sha256 !== stored.sha256) throw new GantryError('GANTRY_E_ALREADY_EXISTS', 'another artifact of the same type already exists');
        await this.deps.artifactFiles.remove(stored.path);
        return existing;
      }
      const entries = fileFormat === 'zip' ? await this.zipEntries(stored.path, job.id, signal) : [];
      const variables = fileType === 'dotenv' ? await readDotenvReport(this.deps.artifactFiles, stored.path, stored.size) : [];
      const now = this.clock();
      const expireAt = await this.expireAt(options.expiresInSeconds, now);
      const fileName = uploadedName(file.fileName) ?? defaultName(fileType, fileFormat);
      const { artifact, replacedPath } = await this.deps.jobArtifacts.save(
        { job_id: job.id, project_id: job.project_id, file_type: fileType, file_format: fileFormat, file_name: fileName, size: stored.size, sha256: stored.sha256, path: stored.path, expire_at: expireAt, created_at: new Date(now).toISOString() },
        entries,
        variables,
      );
      if (fileType === 'archive') await this.deps.jobs.update(job.id, { artifacts_expire_at: expireAt, updated_at: new Date(now).toISOString() });
      if (replacedPath !== null) await this.deps.artifactFiles.remove(replacedPath);
      return artifact;
    } catch (error) {
      await this.deps.artifactFiles.remove(stored.path);
      throw error;
    }
  }

  /**
   * Members to serve: files and directories with their locations; absolute, `..`, symlink,
   * repeated and other unsafe members are left out. Not a zip: none. Over the member limits:
   * refused (413), as Workhorse refuses an archive it cannot build metadata for.
   */
  private async zipEntries(path: string, jobId: number, signal: AbortSignal | undefined): Promise<ArtifactEntryRecord[]> {
    try {
      return await this.deps.members.index(path, jobId, signal);
    } catch (error) {
      if (error instanceof ZipIndexLimitError || signal?.aborted) throw error;
      // GitLab (Workhorse) keeps such an upload without metadata: downloadable whole, not browsable.
      this.deps.logger.info({ job: jobId, err: error }, 'artifacts archive is not a readable zip; kept without a member list');
      return [];
    }
  }

  private async expireAt(seconds: number | null | undefined, now: number): Promise<string | null> {
    let after = seconds;
    if (after === undefined) {
      // The instance default; `0` (or `never`) there means no expiry, as GitLab documents it.
      after = expiryOf((await this.deps.settings.values()).default_artifacts_expire_in, false) ?? null;
    }
    return after === null ? null : new Date(now + after * 1000).toISOString();
  }
}

/**
 * `never` → null, a duration → seconds, absent → undefined; unreadable → 400 (or null when not
 * `strict`). A zero duration never expires: GitLab's ChronicDuration.parse answers nil for it.
 */
function expiryOf(value: string | undefined, strict = true): number | null | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.trim().toLowerCase() === 'never') return null;
  const seconds = parseDuration(value);
  if (seconds === null) {
    if (strict) throw invalidParam('expire_in');
    return null;
  }
  return seconds === 0 ? null : seconds;
}

/** The name the runner gave the file, without any directory part or control characters; undefined when nothing is left. */
function uploadedName(name: string): string | undefined {
  const base = name.split(/[/\\]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (clean === '' || clean === '.' || clean === '..') return undefined;
  return Buffer.byteLength(clean) > 255 ? undefined : clean;
}

function defaultName(fileType: UploadArtifactType, format: ArtifactFileFormat): string {
  return fileType === 'archive' ? 'artifacts.zip' : `${fileType}${EXTENSIONS[format]}`;
}
