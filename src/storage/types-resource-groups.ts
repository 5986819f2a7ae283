/** A project's resource groups (migration 057, GitLab's `ci_resource_groups`). */
import type { ResourceGroupProcessMode } from '../pipeline/resource-group-modes.ts';
import type { Page } from './types-ci.ts';
import type { JobRecord } from './types-ci-jobs.ts';

export interface ResourceGroupRecord {
  id: number;
  project_id: number;
  /** As the jobs name it (`ci_jobs.resource_group`, expanded). */
  key: string;
  process_mode: ResourceGroupProcessMode;
  created_at: string;
  updated_at: string;
}

export interface ResourceGroupsStore {
  /** Makes the project's groups of these keys that do not exist yet (`unordered`), dated `now`. */
  ensure(projectId: number, keys: readonly string[], now: string): Promise<void>;
  /** The project's groups by id. */
  list(projectId: number, page: Page): Promise<{ items: ResourceGroupRecord[]; total: number }>;
  findByKey(projectId: number, key: string): Promise<ResourceGroupRecord | undefined>;
  /** Sets the group's process mode; answers the group as it is now. */
  setProcessMode(id: number, mode: ResourceGroupProcessMode, now: string): Promise<ResourceGroupRecord | undefined>;
  /** The job of the group holding its resource (`pending`, `running` or `canceling`), if any. */
  currentJob(group: Pick<ResourceGroupRecord, 'project_id' | 'key'>): Promise<JobRecord | undefined>;
  /** The group's jobs that will get its resource next, in the order they would (see `resource-group-modes.ts`). */
  upcomingJobs(group: Pick<ResourceGroupRecord, 'project_id' | 'key' | 'process_mode'>, page: Page): Promise<{ items: JobRecord[]; total: number }>;
}
