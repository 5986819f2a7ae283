import type { Readable } from 'node:stream';

export const PACKAGE_TYPES = ['generic'] as const;
export type PackageType = (typeof PACKAGE_TYPES)[number];

/** GitLab's package statuses a generic upload may set (the others, such as `processing`, never occur here). */
export const PACKAGE_STATUSES = ['default', 'hidden'] as const;
export type PackageStatus = (typeof PACKAGE_STATUSES)[number];

export interface PackageRecord {
  id: number;
  project_id: number;
  name: string;
  version: string;
  package_type: PackageType;
  status: PackageStatus;
  created_at: string;
  updated_at: string;
}

export interface PackageFileRecord {
  id: number;
  package_id: number;
  file_name: string;
  size: number;
  file_md5: string;
  file_sha256: string;
  /** Where the bytes are (PackageFileBlobs). */
  file_path: string;
  /** The pipeline of the job that uploaded it with its job token, else null. */
  pipeline_id: number | null;
  created_at: string;
}

export const PACKAGE_ORDERS = ['created_at', 'name', 'version', 'type'] as const;
export type PackageOrder = (typeof PACKAGE_ORDERS)[number];

export interface PackageListQuery {
  projectId: number;
  /** Any of GitLab's types: those Gantry never makes match nothing. */
  packageType?: string;
  /** Part of the name (case-insensitive), as GitLab's `package_name`. */
  name?: string;
  version?: string;
  /** Any of GitLab's statuses; absent: every status but `hidden`. */
  status?: string;
  orderBy: PackageOrder;
  sort: 'asc' | 'desc';
  offset: number;
  limit: number;
}

export interface PackagesStore {
  list(query: PackageListQuery): Promise<{ items: PackageRecord[]; total: number }>;
  find(projectId: number, id: number): Promise<PackageRecord | undefined>;
  findByName(projectId: number, type: PackageType, name: string, version: string): Promise<PackageRecord | undefined>;
  /**
   * The package of that name and version, made when there is none (with `status`); an upload
   * that names a status sets it on the existing one too.
   */
  findOrCreate(fields: Pick<PackageRecord, 'project_id' | 'package_type' | 'name' | 'version'> & { status?: PackageStatus; now: string }): Promise<PackageRecord>;
  /** Removes the package and its file rows; answers the files' paths. */
  delete(id: number): Promise<string[]>;
  listFiles(packageId: number, page?: { offset: number; limit: number }): Promise<{ items: PackageFileRecord[]; total: number }>;
  /** The newest file of that name in the package. */
  newestFile(packageId: number, fileName: string): Promise<PackageFileRecord | undefined>;
  findFile(packageId: number, id: number): Promise<PackageFileRecord | undefined>;
  addFile(file: Omit<PackageFileRecord, 'id'>): Promise<PackageFileRecord>;
  deleteFile(id: number): Promise<void>;
  /** Pipeline ids of the packages' files, newest upload first, per package. */
  pipelineIds(packageIds: readonly number[]): Promise<Map<number, number[]>>;
}

/** Thrown by PackageFileBlobs.write past its byte budget (nothing is kept). */
export class PackageFileTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`package file larger than ${limit} bytes`);
    this.name = 'PackageFileTooLargeError';
  }
}

export interface StoredPackageFile {
  /** Relative to the data directory: `packages/<project>/<random name>`. */
  path: string;
  size: number;
  sha256: string;
  md5: string;
}

/** Package files' bytes under `<data dir>/packages/<project>/`: streamed both ways, never held whole. */
export interface PackageFileBlobs {
  /**
   * Streams `source` into a new file of the project (through a temporary file renamed when
   * complete), computing SHA-256 and MD5 on the way; past `maxBytes` it stops reading (the
   * rest of `source` is left unread, not destroyed), keeps nothing and throws PackageFileTooLargeError; when `signal` aborts, the same with its reason.
   */
  write(projectId: number, source: Readable, options: { maxBytes: number; signal?: AbortSignal }): Promise<StoredPackageFile>;
  read(path: string): Promise<{ stream: Readable; size: number } | undefined>;
  /** A missing file is fine. */
  remove(path: string): Promise<void>;
  /** Every package file of these projects. */
  removeForProjects(projectIds: readonly number[]): Promise<void>;
}
