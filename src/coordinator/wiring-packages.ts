import { FsPackageFileBlobs } from '../storage/fs/package-files.ts';
import type { CoordinatorContext } from './context.ts';
import { PackagePermissions } from './services/access/package-permissions.ts';
import type { JobTokenAccess } from './services/ci/runners/job-token-access.ts';
import { DEFAULT_GENERIC_PACKAGE_MAX_BYTES, GenericPackagesService } from './services/packages/generic-packages.ts';
import { PackagesService } from './services/packages/packages.ts';

/** Package files under `<data dir>/packages/`. */
export function packageFileBlobs(context: CoordinatorContext): FsPackageFileBlobs {
  return new FsPackageFileBlobs(context.config.dataDir);
}

/** The package registry: the project's packages, and generic package files up and down. */
export function buildPackageServices(context: CoordinatorContext, jobTokens: Pick<JobTokenAccess, 'currentJob'>, maxFileBytes = DEFAULT_GENERIC_PACKAGE_MAX_BYTES) {
  const { stores, lookup } = context;
  const permissions = new PackagePermissions(context.permissions);
  const blobs = packageFileBlobs(context);
  const shared = { lookup, permissions, packages: stores.packages, blobs, pipelines: stores.pipelines, users: stores.users, namespaces: stores.namespaces };
  return {
    packages: new PackagesService(shared),
    genericPackages: new GenericPackagesService({ ...shared, jobTokens, maxFileBytes }),
  };
}
