import type { NamespaceRecord, Visibility } from '../../../storage/types.ts';

export interface GroupStatisticsJson {
  storage_size: number;
  repository_size: number;
  lfs_objects_size: number;
  job_artifacts_size: number;
}

export interface GroupJson {
  id: number;
  name: string;
  path: string;
  description: string;
  visibility: Visibility;
  lfs_enabled: boolean;
  avatar_url: string | null;
  web_url: string;
  request_access_enabled: boolean;
  full_name: string;
  full_path: string;
  parent_id: number | null;
  statistics?: GroupStatisticsJson;
}

/** Group details: the group plus the projects it holds and those shared with it (Project JSON). */
export type GroupDetailsJson = GroupJson & { shared_with_groups: unknown[]; projects: unknown[]; shared_projects: unknown[] };

export function groupWebUrl(group: Pick<NamespaceRecord, 'full_path'>, externalUrl: string): string {
  return `${externalUrl}/groups/${group.full_path}`;
}

export function serializeGroup(group: NamespaceRecord, externalUrl: string, statistics?: GroupStatisticsJson): GroupJson {
  const json: GroupJson = {
    id: group.id,
    name: group.name,
    path: group.path,
    description: group.description,
    visibility: group.visibility,
    lfs_enabled: group.lfs_enabled,
    avatar_url: group.avatar_url,
    web_url: groupWebUrl(group, externalUrl),
    request_access_enabled: group.request_access_enabled,
    full_name: group.full_name,
    full_path: group.full_path,
    parent_id: group.parent_id,
  };
  if (statistics) json.statistics = statistics;
  return json;
}

export function serializeGroupDetails(
  group: NamespaceRecord,
  externalUrl: string,
  projects: unknown[],
  sharedProjects: unknown[],
  sharedWithGroups: unknown[],
): GroupDetailsJson {
  return { ...serializeGroup(group, externalUrl), shared_with_groups: sharedWithGroups, projects, shared_projects: sharedProjects };
}
