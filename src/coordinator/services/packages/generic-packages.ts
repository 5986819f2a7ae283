import type { Readable } from 'node:stream';
import { accessDenied, GantryError, invalidParams, type ParamProblem } from '../../../shared/errors.ts';
import type { PipelinesStore } from '../../../storage/types-ci.ts';
import { PackageFileTooLargeError, type PackageFileBlobs, type PackageFileRecord, type PackageRecord, type PackagesStore, type PackageStatus } from '../../../storage/types-packages.ts';
import type { NamespacesStore, UsersStore } from '../../../storage/types.ts';
import type { Lookup } from '../access/lookup.ts';
import type { PackagePermissions } from '../access/package-permissions.ts';
import type { Actor } from '../access/permissions.ts';
import type { JobTokenAccess } from '../ci/runners/job-token-access.ts';
import { projectFullPath } from '../namespaces/project-full-path.ts';
import { PackagePipelines, type PackageFileView } from './package-views.ts';

/** GitLab's generic_package_name_regex (and file name regex): letters, digits, `.`, `_`, `-`, `+`. */
const NAME = /^[A-Za-z0-9._+-]+$/;
/** GitLab's generic_package_version_regex (maven_version_regex): word characters, `+`, `.`, `-`, and no `..`. */
const VERSION = /^(?!.*\.\.)[\w+.-]+$/;

const fileTooLarge = () => new GantryError('GANTRY_E_PACKAGE_FILE_TOO_LARGE', 'File is too large');

/** GitLab's generic_packages_max_file_size default (5 GiB). */
export const DEFAULT_GENERIC_PACKAGE_MAX_BYTES = 5 * 1024 ** 3;

export interface GenericPackagesDeps {
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: PackagePermissions;
  packages: Pick<PackagesStore, 'findOrCreate' | 'findByName' | 'newestFile' | 'addFile'>;
  blobs: Pick<PackageFileBlobs, 'write' | 'read' | 'remove'>;
  jobTokens: Pick<JobTokenAccess, 'currentJob'>;
  pipelines: Pick<PipelinesStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  maxFileBytes: number;
  now?: () => Date;
}

export interface GenericFileRef {
  packageName: string;
  packageVersion: string;
  fileName: string;
}

export interface GenericUpload extends GenericFileRef {
  status?: PackageStatus;
  /** The CI job token the request signed in with, if any: its job's pipeline is recorded. */
  jobToken?: string;
  /** The length the request declares, when it does: one over the limit is refused unread. */
  declaredSize?: number;
}

/**
 * Problems with a generic package's name, version and file name, in grape's words: the
 * regexps first, then `file_path` (a `.` or `..` name would address a directory).
 */
export function genericRefProblems(ref: GenericFileRef): ParamProblem[] {
  const problems: ParamProblem[] = [];
  const check = (name: string, value: string, pattern: RegExp, path: boolean) => {
    if (!pattern.test(value)) problems.push({ name, problem: 'is invalid' });
    else if (path && (value === '.' || value === '..')) problems.push({ name, problem: 'should be a valid file path' });
  };
  check('package_name', ref.packageName, NAME, true);
  check('package_version', ref.packageVersion, VERSION, false);
  check('file_name', ref.fileName, NAME, true);
  return problems;
}

/**
 * GitLab's generic packages (`/projects/:id/packages/generic/:name/:version/:file`): an upload
 * streams to disk with its SHA-256 and MD5 computed on the way and adds a file to the package
 * of that name and version (made on first upload); the same file name may be uploaded again,
 * and a download serves the newest. Uploads need create_package, downloads read_package.
 */
export class GenericPackagesService {
  constructor(private readonly deps: GenericPackagesDeps) {}

  async upload(projectRef: string, actor: Actor, upload: GenericUpload, body: Readable, signal?: AbortSignal): Promise<{ projectFullPath: string; package: PackageRecord; file: PackageFileView }> {
    const problems = genericRefProblems(upload);
    if (problems.length > 0) throw invalidParams(problems);
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canUploadPackages(project, actor))) throw accessDenied();
    if (upload.declaredSize !== undefined && upload.declaredSize > this.deps.maxFileBytes) throw fileTooLarge();
    const job = await this.deps.jobTokens.currentJob(upload.jobToken);
    const pipelineId = job && job.project_id === project.id ? job.pipeline_id : null;
    let stored;
    try {
      stored = await this.deps.blobs.write(project.id, body, { maxBytes: this.deps.maxFileBytes, signal });
    } catch (error) {
      if (error instanceof PackageFileTooLargeError) throw fileTooLarge();
      throw error;
    }
    try {
      const now = (this.deps.now?.() ?? new Date()).toISOString();
      const found = await this.deps.packages.findOrCreate({ project_id: project.id, package_type: 'generic', name: upload.packageName, version: upload.packageVersion, status: upload.status, now });
      const file = await this.deps.packages.addFile({
        package_id: found.id,
        file_name: upload.fileName,
        size: stored.size,
        file_md5: stored.md5,
        file_sha256: stored.sha256,
        file_path: stored.path,
        pipeline_id: pipelineId,
        created_at: now,
      });
      const pipelines = await new PackagePipelines(this.deps).load(pipelineId === null ? [] : [pipelineId]);
      return { projectFullPath: await projectFullPath(this.deps.namespaces, project), package: found, file: { file, pipelines } };
    } catch (error) {
      await this.deps.blobs.remove(stored.path);
      throw error;
    }
  }

  /** The newest file of that name in the package, streamed. */
  async download(projectRef: string, actor: Actor, ref: GenericFileRef): Promise<{ file: PackageFileRecord; stream: Readable; size: number }> {
    const problems = genericRefProblems(ref);
    if (problems.length > 0) throw invalidParams(problems);
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canReadPackages(project, actor))) throw accessDenied();
    const found = await this.deps.packages.findByName(project.id, 'generic', ref.packageName, ref.packageVersion);
    if (!found) throw new GantryError('GANTRY_E_PACKAGE_NOT_FOUND');
    const file = await this.deps.packages.newestFile(found.id, ref.fileName);
    const bytes = file ? await this.deps.blobs.read(file.file_path) : undefined;
    if (!file || !bytes) throw new GantryError('GANTRY_E_PACKAGE_FILE_NOT_FOUND');
    return { file, ...bytes };
  }
}
