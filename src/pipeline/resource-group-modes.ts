/**
 * GitLab's resource group process modes (`Ci::ResourceGroup.process_modes`): which job of a
 * group gets its free resource next. The group's upcoming jobs are, by mode:
 *
 * - `unordered` (the default): the jobs waiting for the resource.
 * - `oldest_first`: the jobs waiting, `created` or `scheduled`, oldest pipeline first.
 * - `newest_first`: the same, newest pipeline first.
 * - `newest_ready_first`: the jobs waiting, newest pipeline first.
 *
 * Within a pipeline, waiting jobs come before the others (GitLab does not order a pipeline's
 * jobs of one group, so that none waits on a later one). The resource goes to the first upcoming
 * job only, and only if it waits: under `oldest_first` and `newest_first` a first pipeline whose
 * job of the group is still `created` or `scheduled` keeps the resource free for it.
 */
import type { JobStatus } from './types.ts';

export const RESOURCE_GROUP_PROCESS_MODES = ['unordered', 'oldest_first', 'newest_first', 'newest_ready_first'] as const;

export type ResourceGroupProcessMode = (typeof RESOURCE_GROUP_PROCESS_MODES)[number];

export function isResourceGroupProcessMode(value: string): value is ResourceGroupProcessMode {
  return (RESOURCE_GROUP_PROCESS_MODES as readonly string[]).includes(value);
}

/** The statuses of a group's upcoming jobs in this mode. */
export function upcomingStatuses(mode: ResourceGroupProcessMode): readonly JobStatus[] {
  return mode === 'oldest_first' || mode === 'newest_first' ? ['created', 'scheduled', 'waiting_for_resource'] : ['waiting_for_resource'];
}

/** How this mode orders the group's upcoming jobs by pipeline; `unordered` takes the oldest job first. */
export function pipelineOrder(mode: ResourceGroupProcessMode): 'asc' | 'desc' | 'none' {
  if (mode === 'oldest_first') return 'asc';
  if (mode === 'newest_first' || mode === 'newest_ready_first') return 'desc';
  return 'none';
}

/** The job the free resource goes to: the first upcoming job, if it is the one waiting. */
export function resourceTaker<T extends { status: JobStatus }>(upcoming: T | undefined): T | undefined {
  return upcoming?.status === 'waiting_for_resource' ? upcoming : undefined;
}
