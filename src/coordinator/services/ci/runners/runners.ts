import { accessDenied, GantryError } from '../../../../shared/errors.ts';
import type { NamespaceRecord, NamespacesStore, ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { CiJobsStore } from '../../../../storage/types-ci-jobs.ts';
import type { Page, PipelinesStore } from '../../../../storage/types-ci.ts';
import type { RunnerListFilter, RunnerManagersStore, RunnerRecord, RunnersStore } from '../../../../storage/types-runners.ts';
import type { Permissions } from '../../access/permissions.ts';
import { actorProjectAccess, type ProjectScopeDeps } from '../../namespaces/project-scope.ts';
import { storeFilterOf } from './filters.ts';
import { runnerManagerStatus } from './manager-heartbeats.ts';
import type { RunnerRegistration, RunnerTokenView } from './registration.ts';
import { checkRunner, isOnline, runnerChangesOf, runnerStatus, type RunnerSettingsInput } from './rules.ts';
import type { ProjectWithNamespace, RunnerDetailView, RunnerFilter, RunnerJobsFilter, RunnerJobView, RunnerManagerView, RunnerView } from './views.ts';

export interface RunnersServiceDeps {
  runners: Pick<RunnersStore, 'findById' | 'list' | 'update' | 'delete' | 'projectIds' | 'namespaceIds'>;
  managers: Pick<RunnerManagersStore, 'listByRunner'>;
  tokens: Pick<RunnerRegistration, 'rotate'>;
  projects: Pick<ProjectsStore, 'findByIds' | 'listByNamespaces'>;
  namespaces: Pick<NamespacesStore, 'findByIds'>;
  users: Pick<UsersStore, 'findByIds'>;
  jobs: Pick<CiJobsStore, 'list'>;
  pipelines: Pick<PipelinesStore, 'findByIds'>;
  scope: ProjectScopeDeps;
  permissions: Pick<
    Permissions,
    'administersAllRunners' | 'runnerOwnershipScope' | 'ownsRunner' | 'seesSharedRunner' | 'seesRunnerProject'
  >;
}

/** Where a runner serves: its projects (each with its namespace) and groups. */
interface RunnerOwners {
  projects: ProjectWithNamespace[];
  groups: NamespaceRecord[];
}

/**
 * The runners API (spec 02 "Runners"): the caller's own runners, all runners for
 * administrators, one runner's details, changes and removal, and the jobs it ran.
 */
export class RunnersService {
  constructor(private readonly deps: RunnersServiceDeps) {}

  /** `GET /runners`: runners of the projects the caller maintains and the groups they own. */
  async listOwned(actor: UserRecord, filter: RunnerFilter, page: Page): Promise<{ items: RunnerView[]; total: number }> {
    const scope = this.deps.permissions.runnerOwnershipScope(await actorProjectAccess(this.deps.scope, actor));
    const inNamespaces = await this.deps.projects.listByNamespaces(scope.projectNamespaceIds);
    const projectIds = [...new Set([...scope.projectIds, ...inNamespaces.map((project) => project.id)])];
    return this.list({ ...storeFilterOf(filter, Date.now()), projectIds, namespaceIds: scope.groupIds }, page);
  }

  /** `GET /runners/all`: every runner (administrators). */
  async listAll(actor: UserRecord, filter: RunnerFilter, page: Page): Promise<{ items: RunnerView[]; total: number }> {
    if (!this.deps.permissions.administersAllRunners(actor)) throw accessDenied();
    return this.list(storeFilterOf(filter, Date.now()), page);
  }

  async list(filter: RunnerListFilter, page: Page): Promise<{ items: RunnerView[]; total: number }> {
    const { items, total } = await this.deps.runners.list(filter, page);
    const now = Date.now();
    return { items: items.map((runner) => viewOf(runner, now)), total };
  }

  /** `GET /runners/:id`: shared runners to anyone signed in, others to their owners. */
  async get(actor: UserRecord, id: number): Promise<RunnerDetailView> {
    const runner = await this.find(id);
    const owners = await this.ownersOf(runner);
    if (!(runner.runner_type === 'instance_type' && this.deps.permissions.seesSharedRunner(actor))) await this.requireOwner(owners, actor);
    return this.detail(runner, owners, actor);
  }

  /** `PUT /runners/:id`: shared runners only by administrators. */
  async update(actor: UserRecord, id: number, input: RunnerSettingsInput): Promise<RunnerDetailView> {
    const runner = await this.find(id);
    const owners = await this.ownersOf(runner);
    await this.requireManager(runner, owners, actor);
    const changes = runnerChangesOf(input);
    checkRunner({ ...runner, ...changes });
    const updated = await this.deps.runners.update(runner.id, { ...changes, updated_at: new Date().toISOString() });
    if (!updated) throw new GantryError('GANTRY_E_RUNNER_NOT_FOUND');
    return this.detail(updated, owners, actor);
  }

  /** `DELETE /runners/:id`: GitLab's checks in its order; administrators may remove any runner. */
  async remove(actor: UserRecord, id: number): Promise<void> {
    const runner = await this.find(id);
    const owners = await this.ownersOf(runner);
    if (!this.deps.permissions.administersAllRunners(actor)) {
      if (runner.runner_type === 'instance_type') throw accessDenied('Runner is shared');
      if (owners.projects.length > 1) throw accessDenied('Runner associated with more than one project');
      await this.requireOwner(owners, actor);
    }
    await this.deps.runners.delete(runner.id);
  }

  /** `GET /runners/:id/managers`: the hosts using the runner's token, most recently in touch first (whoever may see the runner). */
  async managers(actor: UserRecord, id: number): Promise<RunnerManagerView[]> {
    const runner = await this.find(id);
    if (!(runner.runner_type === 'instance_type' && this.deps.permissions.seesSharedRunner(actor))) await this.requireOwner(await this.ownersOf(runner), actor);
    const now = Date.now();
    return (await this.deps.managers.listByRunner(runner.id)).map((manager) => ({ manager, status: runnerManagerStatus(manager, now) }));
  }

  /** `POST /runners/:id/reset_authentication_token`: a new token for a runner the caller may change. */
  async resetAuthenticationToken(actor: UserRecord, id: number): Promise<RunnerTokenView> {
    const runner = await this.find(id);
    await this.requireManager(runner, await this.ownersOf(runner), actor);
    return this.deps.tokens.rotate(runner);
  }

  /** `GET /runners/:id/jobs`: the jobs the runner took, newest first. */
  async jobs(actor: UserRecord, id: number, filter: RunnerJobsFilter, page: Page): Promise<{ items: RunnerJobView[]; total: number }> {
    const runner = await this.find(id);
    await this.requireManager(runner, await this.ownersOf(runner), actor);
    const { items, total } = await this.deps.jobs.list(
      { runnerId: runner.id, statuses: filter.status === undefined ? undefined : [filter.status], includeRetried: true, sort: 'desc' },
      page,
    );
    const projects = await this.withNamespaces(await this.deps.projects.findByIds(items.map((job) => job.project_id)));
    const pipelines = await this.deps.pipelines.findByIds(items.map((job) => job.pipeline_id));
    const userIds = items.flatMap((job) => (job.user_id === null ? [] : [job.user_id]));
    const users = await this.deps.users.findByIds(userIds);
    const views = items.map((job) => ({
      job,
      project: projects.find((entry) => entry.project.id === job.project_id),
      pipeline: pipelines.find((pipeline) => pipeline.id === job.pipeline_id),
      user: users.find((user) => user.id === job.user_id),
    }));
    return { items: views, total };
  }

  /** The runner, else 404 Runner Not Found. */
  async find(id: number): Promise<RunnerRecord> {
    const runner = await this.deps.runners.findById(id);
    if (!runner) throw new GantryError('GANTRY_E_RUNNER_NOT_FOUND');
    return runner;
  }

  /** Its projects in the order they were enabled, and its groups. */
  async ownersOf(runner: RunnerRecord): Promise<RunnerOwners> {
    const projectIds = await this.deps.runners.projectIds(runner.id);
    const projects = inOrder(projectIds, await this.deps.projects.findByIds(projectIds));
    const groupIds = await this.deps.runners.namespaceIds(runner.id);
    return { projects: await this.withNamespaces(projects), groups: inOrder(groupIds, await this.deps.namespaces.findByIds(groupIds)) };
  }

  /** 403 "No access granted" unless the caller owns the runner. */
  async requireOwner(owners: RunnerOwners, actor: UserRecord): Promise<void> {
    const owns = await this.deps.permissions.ownsRunner({ projects: owners.projects.map((entry) => entry.project), groups: owners.groups }, actor);
    if (!owns) throw accessDenied('No access granted');
  }

  /** Changing, removing or listing the jobs of a runner: 403 "Runner is shared" for shared runners unless an administrator asks. */
  private async requireManager(runner: RunnerRecord, owners: RunnerOwners, actor: UserRecord): Promise<void> {
    if (this.deps.permissions.administersAllRunners(actor)) return;
    if (runner.runner_type === 'instance_type') throw accessDenied('Runner is shared');
    await this.requireOwner(owners, actor);
  }

  /** Administrators see every project of the runner; others those they are a member of. */
  private async detail(runner: RunnerRecord, owners: RunnerOwners, actor: UserRecord): Promise<RunnerDetailView> {
    const projects: ProjectWithNamespace[] = [];
    for (const entry of owners.projects) if (await this.deps.permissions.seesRunnerProject(entry.project, actor)) projects.push(entry);
    return { ...viewOf(runner, Date.now()), projects, groups: owners.groups };
  }

  private async withNamespaces(projects: readonly ProjectRecord[]): Promise<ProjectWithNamespace[]> {
    const namespaces = await this.deps.namespaces.findByIds(projects.map((project) => project.namespace_id));
    return projects.flatMap((project) => {
      const namespace = namespaces.find((candidate) => candidate.id === project.namespace_id);
      return namespace ? [{ project, namespace }] : [];
    });
  }
}

/** `records` in the order of `ids` (stores answer `findByIds` in no promised order). */
function inOrder<T extends { id: number }>(ids: readonly number[], records: readonly T[]): T[] {
  const byId = new Map(records.map((record) => [record.id, record]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export function viewOf(runner: RunnerRecord, now: number): RunnerView {
  return { runner, online: isOnline(runner, now), status: runnerStatus(runner, now) };
}
