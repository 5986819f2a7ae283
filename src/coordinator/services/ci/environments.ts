import { environmentTier, type EnvironmentTier } from '../../../ci/environment-tier.ts';
import { environmentSlug } from '../../../ci/slug.ts';
import { accessDenied, GantryError, validationFailed } from '../../../shared/errors.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { DeploymentRecord, DeploymentsStore, EnvironmentChanges, EnvironmentRecord, EnvironmentsStore, EnvironmentState } from '../../../storage/types-environments.ts';
import type { ProjectRecord, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { FieldErrors } from './variable-rules.ts';
import { environmentNameErrors, externalUrlErrors } from './environment-rules.ts';
import type { EnvironmentStopAction } from './environment-stop.ts';
import { STOPPED } from './pipelines/deployments.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Permissions } from '../access/permissions.ts';
import type { Page, Paged } from '../repository/pages.ts';

/** An environment with its newest successful deployment and that deployment's user. */
export interface EnvironmentView {
  environment: EnvironmentRecord;
  lastDeployment: { deployment: DeploymentRecord; user: UserRecord | null } | null;
}

export interface EnvironmentListQuery {
  name?: string;
  search?: string;
  states?: readonly EnvironmentState[];
}

export interface EnvironmentInput {
  name?: string;
  /** null clears it. */
  externalUrl?: string | null;
  tier?: EnvironmentTier;
}

export interface EnvironmentsServiceDeps {
  environments: EnvironmentsStore;
  deployments: Pick<DeploymentsStore, 'lastSuccessful'>;
  users: Pick<UsersStore, 'findByIds'>;
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'canReadEnvironments' | 'canManageEnvironments' | 'canDeleteEnvironment'>;
  stopAction: Pick<EnvironmentStopAction, 'play'>;
}

/**
 * `/projects/:id/environments`: Reporters read; Developers create, update, stop and delete
 * (GitLab 10's `update_environment` and `create_deployment`). The slug is made once from the
 * first name and stays when the environment is renamed.
 */
export class EnvironmentsService {
  constructor(private readonly deps: EnvironmentsServiceDeps) {}

  async list(projectRef: string, actor: UserRecord, query: EnvironmentListQuery, page: Page): Promise<Paged<EnvironmentView>> {
    const project = await this.project(projectRef, actor, 'read');
    const { items, total } = await this.deps.environments.list(project.id, query, page);
    return { items: await this.views(items), total };
  }

  async get(projectRef: string, actor: UserRecord, environmentId: number): Promise<EnvironmentView> {
    return this.view(await this.find(await this.project(projectRef, actor, 'read'), environmentId));
  }

  /** Without a tier, GitLab's guess from the name. */
  async create(projectRef: string, actor: UserRecord, input: { name: string; externalUrl?: string | null; tier?: EnvironmentTier }): Promise<EnvironmentView> {
    const project = await this.project(projectRef, actor, 'manage');
    const externalUrl = input.externalUrl ?? null;
    const errors = await this.check(project, { name: input.name, externalUrl });
    const slug = environmentSlug(input.name);
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    const now = new Date().toISOString();
    try {
      const environment = await this.deps.environments.create({
        project_id: project.id, name: input.name, slug, external_url: externalUrl, state: 'available', tier: environmentTier(input.name, input.tier), created_at: now, updated_at: now,
      });
      return this.view(environment);
    } catch (error) {
      if (isUniqueViolation(error)) throw await this.takenError(project, input.name);
      throw error;
    }
  }

  async update(projectRef: string, actor: UserRecord, environmentId: number, input: EnvironmentInput): Promise<EnvironmentView> {
    const project = await this.project(projectRef, actor, 'manage');
    const environment = await this.find(project, environmentId);
    const errors = await this.check(project, input, environment.id);
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    try {
      return this.view(await this.save(environment, { name: input.name, external_url: input.externalUrl, tier: input.tier }));
    } catch (error) {
      if (isUniqueViolation(error) && input.name !== undefined) throw await this.takenError(project, input.name);
      throw error;
    }
  }

  async remove(projectRef: string, actor: UserRecord, environmentId: number): Promise<void> {
    const project = await this.project(projectRef, actor, 'manage');
    const environment = await this.find(project, environmentId);
    if (!(await this.deps.permissions.canDeleteEnvironment(project, actor, environment))) throw accessDenied();
    if (!(await this.deps.environments.delete(environment.id))) throw new GantryError('GANTRY_E_ENVIRONMENT_NOT_FOUND');
  }

  /** Marks the environment stopped (an environment already stopped stays so; no auto-stop time is left) and plays its `on_stop` job. */
  async stop(projectRef: string, actor: UserRecord, environmentId: number): Promise<EnvironmentView> {
    const environment = await this.find(await this.project(projectRef, actor, 'manage'), environmentId);
    const stopped = await this.save(environment, STOPPED);
    await this.deps.stopAction.play(stopped, actor);
    return this.view(stopped);
  }

  private async save(environment: EnvironmentRecord, changes: EnvironmentChanges): Promise<EnvironmentRecord> {
    const updated = await this.deps.environments.update(environment.id, { ...changes, updated_at: new Date().toISOString() });
    if (!updated) throw new GantryError('GANTRY_E_ENVIRONMENT_NOT_FOUND');
    return updated;
  }

  /** GitLab's Environment validations for the fields given. */
  private async check(project: ProjectRecord, input: EnvironmentInput, selfId?: number): Promise<FieldErrors> {
    const errors: FieldErrors = {};
    if (input.name !== undefined) {
      const reasons = environmentNameErrors(input.name);
      if (reasons.length === 0) {
        const holder = await this.deps.environments.findByName(project.id, input.name);
        if (holder && holder.id !== selfId) reasons.push('has already been taken');
      }
      if (reasons.length > 0) errors.name = reasons;
    }
    if (input.externalUrl !== undefined && input.externalUrl !== null) {
      const reasons = externalUrlErrors(input.externalUrl);
      if (reasons.length > 0) errors.external_url = reasons;
    }
    return errors;
  }

  /** A unique violation on insert or rename: the name was taken meanwhile, or another name made the same slug. */
  private async takenError(project: ProjectRecord, name: string): Promise<GantryError> {
    const byName = await this.deps.environments.findByName(project.id, name);
    return validationFailed(byName ? { name: ['has already been taken'] } : { slug: ['has already been taken'] });
  }

  private async project(projectRef: string, actor: UserRecord, need: 'read' | 'manage'): Promise<ProjectRecord> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    const { permissions } = this.deps;
    const allowed = need === 'read' ? await permissions.canReadEnvironments(project, actor) : await permissions.canManageEnvironments(project, actor);
    if (!allowed) throw accessDenied();
    return project;
  }

  private async find(project: ProjectRecord, environmentId: number): Promise<EnvironmentRecord> {
    const environment = await this.deps.environments.findInProject(project.id, environmentId);
    if (!environment) throw new GantryError('GANTRY_E_ENVIRONMENT_NOT_FOUND');
    return environment;
  }

  private async view(environment: EnvironmentRecord): Promise<EnvironmentView> {
    const [view] = await this.views([environment]);
    return view!;
  }

  private async views(environments: readonly EnvironmentRecord[]): Promise<EnvironmentView[]> {
    if (environments.length === 0) return [];
    const last = await this.deps.deployments.lastSuccessful(environments.map((environment) => environment.id));
    const userIds = [...new Set([...last.values()].flatMap((deployment) => (deployment.user_id === null ? [] : [deployment.user_id])))];
    const users = new Map((userIds.length ? await this.deps.users.findByIds(userIds) : []).map((user) => [user.id, user]));
    return environments.map((environment) => {
      const deployment = last.get(environment.id);
      return {
        environment,
        lastDeployment: deployment ? { deployment, user: deployment.user_id === null ? null : (users.get(deployment.user_id) ?? null) } : null,
      };
    });
  }
}
