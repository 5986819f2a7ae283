import { accessDenied, GantryError } from '../../../shared/errors.ts';
import type { PipelinesStore } from '../../../storage/types-ci.ts';
import type { PackageFileBlobs, PackageListQuery, PackageRecord, PackagesStore } from '../../../storage/types-packages.ts';
import type { NamespacesStore, ProjectRecord, UsersStore } from '../../../storage/types.ts';
import type { Lookup } from '../access/lookup.ts';
import type { PackagePermissions } from '../access/package-permissions.ts';
import type { Actor } from '../access/permissions.ts';
import type { Page, Paged } from '../repository/pages.ts';
import { projectFullPath } from '../namespaces/project-full-path.ts';
import { PackagePipelines, type PackageFileView, type PackageView } from './package-views.ts';

export interface PackagesServiceDeps {
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: PackagePermissions;
  packages: PackagesStore;
  blobs: Pick<PackageFileBlobs, 'remove'>;
  pipelines: Pick<PipelinesStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
}

export type PackageListFilter = Omit<PackageListQuery, 'projectId' | 'offset' | 'limit'>;

/**
 * A project's package registry (`/projects/:id/packages`): listing and reading follow
 * read_package, deleting a package or one of its files needs destroy_package. A project the
 * caller cannot see answers 404; one whose packages they may not read (or delete), 403.
 */
export class PackagesService {
  constructor(private readonly deps: PackagesServiceDeps) {}

  async list(projectRef: string, actor: Actor, filter: PackageListFilter, page: Page): Promise<Paged<PackageView>> {
    const project = await this.readable(projectRef, actor);
    const { items, total } = await this.deps.packages.list({ ...filter, projectId: project.id, ...page });
    return { items: await this.views(project, actor, items), total };
  }

  async get(projectRef: string, actor: Actor, packageId: number): Promise<PackageView> {
    const project = await this.readable(projectRef, actor);
    const [view] = await this.views(project, actor, [await this.package(project, packageId)]);
    return view;
  }

  async remove(projectRef: string, actor: Actor, packageId: number): Promise<void> {
    const project = await this.deletable(projectRef, actor);
    const found = await this.package(project, packageId);
    const paths = await this.deps.packages.delete(found.id);
    // Rows first: a crash between leaves unreferenced files, never rows without bytes.
    await Promise.all(paths.map((path) => this.deps.blobs.remove(path)));
  }

  async listFiles(projectRef: string, actor: Actor, packageId: number, page: Page): Promise<{ projectFullPath: string } & Paged<PackageFileView>> {
    const project = await this.readable(projectRef, actor);
    const found = await this.package(project, packageId);
    const { items, total } = await this.deps.packages.listFiles(found.id, page);
    const pipelines = new PackagePipelines(this.deps);
    const views = await Promise.all(items.map(async (file) => ({ file, pipelines: await pipelines.load(file.pipeline_id === null ? [] : [file.pipeline_id]) })));
    return { projectFullPath: await projectFullPath(this.deps.namespaces, project), items: views, total };
  }

  async removeFile(projectRef: string, actor: Actor, packageId: number, fileId: number): Promise<void> {
    const project = await this.deletable(projectRef, actor);
    const found = await this.package(project, packageId);
    const file = await this.deps.packages.findFile(found.id, fileId);
    if (!file) throw new GantryError('GANTRY_E_PACKAGE_FILE_NOT_FOUND');
    await this.deps.packages.deleteFile(file.id);
    await this.deps.blobs.remove(file.file_path);
  }

  private async views(project: ProjectRecord, actor: Actor, packages: readonly PackageRecord[]): Promise<PackageView[]> {
    const deletable = await this.deps.permissions.canDeletePackages(project, actor);
    const pipelineIds = await this.deps.packages.pipelineIds(packages.map((entry) => entry.id));
    const pipelines = new PackagePipelines(this.deps);
    const fullPath = await projectFullPath(this.deps.namespaces, project);
    return Promise.all(
      packages.map(async (entry) => ({ project, projectFullPath: fullPath, package: entry, deletable, pipelines: await pipelines.load(pipelineIds.get(entry.id) ?? []) })),
    );
  }

  private async package(project: ProjectRecord, packageId: number): Promise<PackageRecord> {
    const found = await this.deps.packages.find(project.id, packageId);
    if (!found) throw new GantryError('GANTRY_E_PACKAGE_NOT_FOUND');
    return found;
  }

  private async readable(projectRef: string, actor: Actor): Promise<ProjectRecord> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canReadPackages(project, actor))) throw accessDenied();
    return project;
  }

  private async deletable(projectRef: string, actor: Actor): Promise<ProjectRecord> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canDeletePackages(project, actor))) throw accessDenied();
    return project;
  }
}
