import { accessDenied, GantryError } from '../../../../shared/errors.ts';
import type { NamespacesStore, ProjectsStore, UserRecord } from '../../../../storage/types.ts';
import type { NewRunner, RunnersStore, RunnerType } from '../../../../storage/types-runners.ts';
import type { Permissions } from '../../access/permissions.ts';
import type { RunnerTokenView } from './registration.ts';
import { checkRunner, runnerChangesOf, type RunnerSettingsInput } from './rules.ts';
import { tokenExpiresAt, type TokenExpirySettings } from './token-expiry.ts';
import { newAuthenticationToken } from './tokens.ts';

export interface CreateRunnerInput extends RunnerSettingsInput {
  runnerType: RunnerType;
  /** Required for `group_type`. */
  groupId?: number;
  /** Required for `project_type`. */
  projectId?: number;
}

export interface UserRunnersDeps {
  runners: Pick<RunnersStore, 'create'>;
  projects: Pick<ProjectsStore, 'findById'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  permissions: Pick<Permissions, 'administersAllRunners' | 'canManageProjectRunners' | 'canManageGroupRunners'>;
  settings: { values(): Promise<TokenExpirySettings> };
  clock?: () => number;
}

/**
 * `POST /user/runners` (GitLab 15.10's `Ci::Runners::CreateRunnerService`): a signed-in user
 * creates a runner and receives its `glrt-` authentication token, which `gitlab-runner
 * register --token` then verifies. Instance runners need an administrator, group runners a
 * group owner, project runners a project Maintainer (GitLab's `create_runner`). A group or
 * project that does not exist is `400 Missing/invalid group` (or project); one the user may
 * not create runners in is `403 Insufficient permissions`, as GitLab answers.
 */
export class UserRunners {
  constructor(private readonly deps: UserRunnersDeps) {}

  async create(actor: UserRecord, input: CreateRunnerInput): Promise<RunnerTokenView> {
    const owners = await this.ownersOf(actor, input);
    const nowMs = (this.deps.clock ?? Date.now)();
    const runner: NewRunner = {
      runner_type: input.runnerType,
      created_at: new Date(nowMs).toISOString(),
      registration_type: 'authenticated_user',
      token_expires_at: tokenExpiresAt(input.runnerType, await this.deps.settings.values(), nowMs),
      // GitLab's defaults for created runners: not locked, untagged jobs taken.
      locked: false,
      ...runnerChangesOf(input),
    };
    checkRunner({ tag_list: runner.tag_list ?? [], run_untagged: runner.run_untagged ?? true, maximum_timeout: runner.maximum_timeout ?? null, maintenance_note: runner.maintenance_note });
    const token = newAuthenticationToken();
    const created = await this.deps.runners.create(runner, token, owners);
    return { runner: created, token, tokenExpiresAt: created.token_expires_at };
  }

  /** Where the runner serves, once the caller may create it there. */
  private async ownersOf(actor: UserRecord, input: CreateRunnerInput): Promise<{ projectIds?: number[]; namespaceId?: number }> {
    const { permissions } = this.deps;
    switch (input.runnerType) {
      case 'instance_type':
        if (!permissions.administersAllRunners(actor)) throw insufficientPermissions();
        return {};
      case 'group_type': {
        const group = input.groupId === undefined ? undefined : await this.deps.namespaces.findById(input.groupId);
        if (!group || group.kind !== 'group') throw new GantryError('GANTRY_E_RUNNER_SCOPE_INVALID', 'Missing/invalid group');
        if (!(await permissions.canManageGroupRunners(group, actor))) throw insufficientPermissions();
        return { namespaceId: group.id };
      }
      case 'project_type': {
        const project = input.projectId === undefined ? undefined : await this.deps.projects.findById(input.projectId);
        if (!project) throw new GantryError('GANTRY_E_RUNNER_SCOPE_INVALID', 'Missing/invalid project');
        if (!(await permissions.canManageProjectRunners(project, actor))) throw insufficientPermissions();
        return { projectIds: [project.id] };
      }
    }
  }
}

function insufficientPermissions(): GantryError {
  return accessDenied('Insufficient permissions');
}
