import type { RunnerListFilter, RunnerType } from '../../../../storage/types-runners.ts';
import { ONLINE_WINDOW_MS } from './rules.ts';
import type { RunnerFilter, RunnerStatusFilter } from './views.ts';

const LEGACY_TYPES: Record<string, readonly RunnerType[]> = {
  specific: ['group_type', 'project_type'],
  shared: ['instance_type'],
};
const TYPES = new Set<string>(['instance_type', 'group_type', 'project_type']);

/** The store filter for the API's `scope`, `type`, `status` and `tag_list` (each narrows further). */
export function storeFilterOf(filter: RunnerFilter, now: number): RunnerListFilter {
  const out: RunnerListFilter = {};
  const typeSets: Array<readonly RunnerType[]> = [];
  if (filter.type !== undefined) typeSets.push([filter.type]);
  for (const value of [filter.scope, filter.status]) {
    if (value === undefined) continue;
    const legacy = LEGACY_TYPES[value];
    if (legacy) typeSets.push(legacy);
    else if (TYPES.has(value)) typeSets.push([value as RunnerType]);
    else Object.assign(out, statusFilter(value as RunnerStatusFilter, now, out));
  }
  if (typeSets.length > 0) out.types = typeSets.reduce((kept, set) => kept.filter((type) => set.includes(type)));
  if (filter.tagList !== undefined && filter.tagList.length > 0) out.tagList = filter.tagList;
  return out;
}

/** GitLab 13's runner scopes: active/paused by the flag, online/offline/not_connected by the last contact. */
function statusFilter(status: RunnerStatusFilter, now: number, sofar: RunnerListFilter): RunnerListFilter {
  const deadline = new Date(now - ONLINE_WINDOW_MS).toISOString();
  switch (status) {
    // `scope=active&status=paused` asks for both: nothing matches.
    case 'active':
      return sofar.active === false ? { ids: [] } : { active: true };
    case 'paused':
      return sofar.active === true ? { ids: [] } : { active: false };
    case 'online':
      return { contactedAfter: deadline };
    case 'offline':
      return { lastContactedNotAfter: deadline };
    case 'not_connected':
      return { neverContacted: true };
  }
}
