import type { PackageFileRecord } from '../../../storage/types-packages.ts';
import type { PackageFileView, PackagePipeline, PackageView } from '../../services/packages/package-views.ts';
import { serializePipelineBasic, type PipelineBasicJson } from './ci/pipelines.ts';
import { serializeUserBasic, type UserBasicJson } from './user-basic.ts';

/** GitLab's Package::Pipeline: PipelineBasic and the user who ran it. */
export interface PackagePipelineJson extends PipelineBasicJson {
  user: UserBasicJson | null;
}

/** GitLab's API::Entities::Package (generic packages: no conan name, no project fields outside group lists). */
export interface PackageJson {
  id: number;
  name: string;
  version: string;
  package_type: string;
  status: string;
  _links: { web_path: string; delete_api_path?: string };
  created_at: string;
  last_downloaded_at: null;
  tags: [];
  pipeline?: PackagePipelineJson;
  pipelines?: PackagePipelineJson[];
}

export interface PackageFileJson {
  id: number;
  package_id: number;
  created_at: string;
  file_name: string;
  size: number;
  file_md5: string;
  file_sha1: null;
  file_sha256: string;
  pipelines?: PackagePipelineJson[];
}

function serializePackagePipeline({ pipeline, user }: PackagePipeline, externalUrl: string, projectFullPath: string): PackagePipelineJson {
  return { ...serializePipelineBasic(pipeline, { externalUrl, projectFullPath }), user: user ? serializeUserBasic(user, externalUrl) : null };
}

export function serializePackage(view: PackageView, externalUrl: string): PackageJson {
  const { package: entry, projectFullPath } = view;
  const pipelines = view.pipelines.map((pipeline) => serializePackagePipeline(pipeline, externalUrl, projectFullPath));
  return {
    id: entry.id,
    name: entry.name,
    version: entry.version,
    package_type: entry.package_type,
    status: entry.status,
    _links: {
      web_path: `/${projectFullPath}/-/packages/${entry.id}`,
      ...(view.deletable ? { delete_api_path: `${externalUrl}/api/v4/projects/${entry.project_id}/packages/${entry.id}` } : {}),
    },
    created_at: entry.created_at,
    last_downloaded_at: null,
    tags: [],
    ...(pipelines.length > 0 ? { pipeline: pipelines[0], pipelines } : {}),
  };
}

export function serializePackageFile(view: PackageFileView, externalUrl: string, projectFullPath: string): PackageFileJson {
  const file: PackageFileRecord = view.file;
  return {
    id: file.id,
    package_id: file.package_id,
    created_at: file.created_at,
    file_name: file.file_name,
    size: file.size,
    file_md5: file.file_md5,
    file_sha1: null,
    file_sha256: file.file_sha256,
    ...(view.pipelines.length > 0 ? { pipelines: view.pipelines.map((pipeline) => serializePackagePipeline(pipeline, externalUrl, projectFullPath)) } : {}),
  };
}
