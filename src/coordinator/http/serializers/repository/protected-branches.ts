import type { ProtectedBranchRecord, ProtectedTagRecord, ProtectionLevel } from '../../../../storage/types-repository.ts';

export interface AccessLevelJson {
  access_level: ProtectionLevel;
  access_level_description: string;
}

export interface ProtectedBranchJson {
  id: number;
  name: string;
  push_access_levels: AccessLevelJson[];
  merge_access_levels: AccessLevelJson[];
  allow_force_push: boolean;
}

const DESCRIPTIONS: Record<ProtectionLevel, string> = { 0: 'No one', 30: 'Developers + Maintainers', 40: 'Maintainers' };

function accessLevel(level: ProtectionLevel): AccessLevelJson {
  return { access_level: level, access_level_description: DESCRIPTIONS[level] };
}

export function serializeProtectedBranch(rule: ProtectedBranchRecord): ProtectedBranchJson {
  return {
    id: rule.id,
    name: rule.name,
    push_access_levels: [accessLevel(rule.push_access_level)],
    merge_access_levels: [accessLevel(rule.merge_access_level)],
    allow_force_push: rule.allow_force_push,
  };
}

export interface ProtectedTagJson {
  name: string;
  create_access_levels: AccessLevelJson[];
}

export function serializeProtectedTag(rule: ProtectedTagRecord): ProtectedTagJson {
  return { name: rule.name, create_access_levels: [accessLevel(rule.create_access_level)] };
}
