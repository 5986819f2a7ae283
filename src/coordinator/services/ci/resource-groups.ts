import type { ResourceGroupProcessMode } from '../../../pipeline/resource-group-modes.ts';
import { accessDenied, GantryError } from '../../../shared/errors.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { ResourceGroupRecord, ResourceGroupsStore } from '../../../storage/types-resource-groups.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Permissions } from '../access/permissions.ts';
import type { Page, Paged } from '../repository/pages.ts';
import type { TaskQueue } from '../task-queue.ts';
import type { JobView, JobViews } from './pipelines/job-views.ts';
import { resourceAssignmentTask } from './pipelines/resource-groups.ts';

export interface ResourceGroupsServiceDeps {
  resourceGroups: ResourceGroupsStore;
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'canManageResourceGroups' | 'canReadJobs'>;
  views: Pick<JobViews, 'target' | 'many'>;
  queue: Pick<TaskQueue, 'enqueue'>;
  clock?: () => Date;
}

/**
 * `/projects/:id/resource_groups[/:key[/upcoming_jobs|/current_job]]`, GitLab's `API::Ci::ResourceGroups`:
 * Developers list, read and change a project's resource groups (`read_resource_group`,
 * `update_resource_group`); the upcoming and current jobs need `read_build` too. As GitLab's API
 * authorizes before it looks a key up, a user without access is denied whether the key exists
 * or not, and learns nothing of which keys do; a missing key is then not found.
 */
export class ResourceGroupsService {
  constructor(private readonly deps: ResourceGroupsServiceDeps) {}

  async list(projectRef: string, actor: UserRecord, page: Page): Promise<Paged<ResourceGroupRecord>> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    await this.authorize(project, actor);
    return this.deps.resourceGroups.list(project.id, page);
  }

  async get(projectRef: string, actor: UserRecord, key: string): Promise<ResourceGroupRecord> {
    return (await this.find(projectRef, actor, key)).group;
  }

  /** The job holding the group's resource, or null. */
  async currentJob(projectRef: string, actor: UserRecord, key: string): Promise<JobView | null> {
    const { project, group } = await this.find(projectRef, actor, key);
    if (!(await this.deps.permissions.canReadJobs(project, actor))) throw accessDenied();
    const job = await this.deps.resourceGroups.currentJob(group);
    return job ? (await this.deps.views.many(await this.deps.views.target(project), [job]))[0]! : null;
  }

  /** The jobs that will get the group's resource next, in that order. */
  async upcomingJobs(projectRef: string, actor: UserRecord, key: string, page: Page): Promise<Paged<JobView>> {
    const { project, group } = await this.find(projectRef, actor, key);
    if (!(await this.deps.permissions.canReadJobs(project, actor))) throw accessDenied();
    const { items, total } = await this.deps.resourceGroups.upcomingJobs(group, page);
    return { items: await this.deps.views.many(await this.deps.views.target(project), items), total };
  }

  /**
   * Changes the group's process mode (none given: the group as it is). A changed mode is put to
   * work at once: the group's assignment runs again, so a free resource goes to the job the new
   * mode puts first if it waits.
   */
  async update(projectRef: string, actor: UserRecord, key: string, input: { processMode?: ResourceGroupProcessMode }): Promise<ResourceGroupRecord> {
    const { project, group } = await this.find(projectRef, actor, key);
    if (input.processMode === undefined || input.processMode === group.process_mode) return group;
    const now = (this.deps.clock?.() ?? new Date()).toISOString();
    const updated = await this.deps.resourceGroups.setProcessMode(group.id, input.processMode, now);
    if (!updated) throw new GantryError('GANTRY_E_RESOURCE_GROUP_NOT_FOUND');
    await this.deps.queue.enqueue(resourceAssignmentTask(project.id, group.key));
    return updated;
  }

  private async find(projectRef: string, actor: UserRecord, key: string): Promise<{ project: ProjectRecord; group: ResourceGroupRecord }> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    await this.authorize(project, actor);
    const group = await this.deps.resourceGroups.findByKey(project.id, key);
    if (!group) throw new GantryError('GANTRY_E_RESOURCE_GROUP_NOT_FOUND');
    return { project, group };
  }

  private async authorize(project: ProjectRecord, actor: UserRecord): Promise<void> {
    if (!(await this.deps.permissions.canManageResourceGroups(project, actor))) throw accessDenied();
  }
}
