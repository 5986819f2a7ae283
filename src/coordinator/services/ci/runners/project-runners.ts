import { accessDenied, GantryError, validationFailed } from '../../../../shared/errors.ts';
import type { NamespacesStore, ProjectRecord, ProjectsStore, UserRecord } from '../../../../storage/types.ts';
import type { Page } from '../../../../storage/types-ci.ts';
import type { RegistrationTokensStore, RunnersStore } from '../../../../storage/types-runners.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { Permissions } from '../../access/permissions.ts';
import { storeFilterOf } from './filters.ts';
import { viewOf, type RunnersService } from './runners.ts';
import { newRegistrationToken, type InstanceRegistrationToken } from './tokens.ts';
import type { RunnerFilter, RunnerView } from './views.ts';

export interface ProjectRunnersServiceDeps {
  runners: Pick<RunnersStore, 'assignProject' | 'unassignProject' | 'projectIds'>;
  projects: Pick<ProjectsStore, 'update'>;
  namespaces: Pick<NamespacesStore, 'ancestors'>;
  registrationTokens: Pick<RegistrationTokensStore, 'setGroupRunnersToken'>;
  instanceToken: Pick<InstanceRegistrationToken, 'reset'>;
  runnersService: Pick<RunnersService, 'find' | 'ownersOf' | 'requireOwner' | 'list'>;
  lookup: Pick<Lookup, 'readableProject' | 'readableGroup'>;
  permissions: Pick<Permissions, 'canManageProjectRunners' | 'canManageGroupRunners' | 'administersAllRunners'>;
}

/** Reasons GitLab gives for refusing to enable or disable a runner in a project. */
function assignmentRefused(reason: string): GantryError {
  return new GantryError('GANTRY_E_RUNNER_ASSIGNMENT_REFUSED', reason, { reason });
}

/**
 * A project's runners (`/projects/:id/runners`: list, enable, disable) and the registration
 * tokens of projects, groups and the instance (reset).
 */
export class ProjectRunnersService {
  constructor(private readonly deps: ProjectRunnersServiceDeps) {}

  /** Its project runners, its groups' runners and, when the project uses them, the shared runners. */
  async list(actor: UserRecord, projectRef: string, filter: RunnerFilter, page: Page): Promise<{ items: RunnerView[]; total: number }> {
    const project = await this.manageable(actor, projectRef);
    const groups = await this.deps.namespaces.ancestors(project.namespace_id);
    const namespaceIds = [project.namespace_id, ...groups.map((group) => group.id)];
    const owners = { projectIds: [project.id], namespaceIds, orInstanceType: project.shared_runners_enabled };
    return this.deps.runnersService.list({ ...storeFilterOf(filter, Date.now()), ...owners }, page);
  }

  /** `POST /projects/:id/runners`: enables a project runner the caller owns (or any, for administrators) in this project too. */
  async enable(actor: UserRecord, projectRef: string, runnerId: number): Promise<RunnerView> {
    const project = await this.manageable(actor, projectRef);
    const { runnersService, permissions } = this.deps;
    const runner = await runnersService.find(runnerId);
    if (runner.runner_type === 'group_type') throw assignmentRefused('Runner is a group runner');
    if (runner.runner_type === 'instance_type') throw assignmentRefused('Runner is shared');
    if (!permissions.administersAllRunners(actor)) {
      if (runner.locked) throw assignmentRefused('Runner is locked');
      await runnersService.requireOwner(await runnersService.ownersOf(runner), actor);
    }
    if (!(await this.deps.runners.assignProject(runner.id, project.id, new Date().toISOString()))) {
      throw validationFailed({ runner_id: ['has already been taken'] });
    }
    return viewOf(runner, Date.now());
  }

  /** `DELETE /projects/:id/runners/:runner_id`: never the runner's only project (remove the runner instead). */
  async disable(actor: UserRecord, projectRef: string, runnerId: number): Promise<void> {
    const project = await this.manageable(actor, projectRef);
    const projectIds = await this.deps.runners.projectIds(runnerId);
    if (!projectIds.includes(project.id)) throw new GantryError('GANTRY_E_RUNNER_NOT_FOUND');
    if (projectIds.length === 1) throw assignmentRefused('Only one project associated with the runner. Please remove the runner instead');
    await this.deps.runners.unassignProject(runnerId, project.id);
  }

  /** A new `runners_token` for the project (the old one registers nothing any more). */
  async resetProjectToken(actor: UserRecord, projectRef: string): Promise<string> {
    const project = await this.manageable(actor, projectRef);
    const token = newRegistrationToken();
    await this.deps.projects.update(project.id, { runners_token: token });
    return token;
  }

  /** A new registration token for the group's runners. */
  async resetGroupToken(actor: UserRecord, groupRef: string): Promise<string> {
    const group = await this.deps.lookup.readableGroup(groupRef, actor);
    if (!(await this.deps.permissions.canManageGroupRunners(group, actor))) throw accessDenied();
    const token = newRegistrationToken();
    await this.deps.registrationTokens.setGroupRunnersToken(group.id, token, new Date().toISOString());
    return token;
  }

  /** The instance registration token, replaced (administrators). */
  async resetInstanceToken(actor: UserRecord): Promise<string> {
    if (!this.deps.permissions.administersAllRunners(actor)) throw accessDenied();
    return this.deps.instanceToken.reset();
  }

  /** A project the caller may read (else 404) and whose runners they manage (else 403). */
  private async manageable(actor: UserRecord, projectRef: string): Promise<ProjectRecord> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canManageProjectRunners(project, actor))) throw accessDenied();
    return project;
  }
}
