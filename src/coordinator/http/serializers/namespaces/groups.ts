import type { AccessLevel, NamespaceRecord, Visibility } from '../../../../storage/types.ts';
import type { GroupStatistics } from '../../../services/namespaces/group-statistics.ts';
import type { GroupDetails, GroupListItem, GroupShareView } from '../../../services/namespaces/groups.ts';
import { avatarUrl } from '../avatar-url.ts';

export type GroupStatisticsJson = GroupStatistics;

export interface SharedWithGroupJson {
  group_id: number;
  group_name: string;
  group_full_path: string;
  group_access_level: AccessLevel;
  expires_at: string | null;
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
export type GroupDetailsJson = GroupJson & { shared_with_groups: SharedWithGroupJson[]; projects: unknown[]; shared_projects: unknown[] };

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
    avatar_url: avatarUrl(group.avatar_url, externalUrl),
    web_url: groupWebUrl(group, externalUrl),
    request_access_enabled: group.request_access_enabled,
    full_name: group.full_name,
    full_path: group.full_path,
    parent_id: group.parent_id,
  };
  if (statistics) json.statistics = statistics;
  return json;
}

/** A group of a listing, with its storage figures when the service included them. */
export function serializeGroupListItem(item: GroupListItem, externalUrl: string): GroupJson {
  return serializeGroup(item.group, externalUrl, item.statistics);
}

export function serializeSharedWithGroup(share: GroupShareView): SharedWithGroupJson {
  return { group_id: share.group.id, group_name: share.group.name, group_full_path: share.group.full_path, group_access_level: share.groupAccess, expires_at: share.expiresAt };
}

/** Group details, its projects already rendered as Project JSON for the caller. */
export function serializeGroupDetails(details: GroupDetails, externalUrl: string, rendered: { projects: unknown[]; sharedProjects: unknown[] }): GroupDetailsJson {
  return {
    ...serializeGroup(details.group, externalUrl),
    shared_with_groups: details.sharedWithGroups.map(serializeSharedWithGroup),
    projects: rendered.projects,
    shared_projects: rendered.sharedProjects,
  };
}
