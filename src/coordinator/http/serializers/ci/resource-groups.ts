import type { ResourceGroupRecord } from '../../../../storage/types-resource-groups.ts';

/** GitLab's `Entities::Ci::ResourceGroup`. */
export interface ResourceGroupJson {
  id: number;
  key: string;
  process_mode: string;
  created_at: string;
  updated_at: string;
}

export function serializeResourceGroup(group: ResourceGroupRecord): ResourceGroupJson {
  return { id: group.id, key: group.key, process_mode: group.process_mode, created_at: group.created_at, updated_at: group.updated_at };
}
