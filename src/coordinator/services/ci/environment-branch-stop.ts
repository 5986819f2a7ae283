import { ZERO_SHA } from '../../../ci/pipeline-variables.ts';
import type { DeploymentsStore, EnvironmentRecord, EnvironmentsStore } from '../../../storage/types-environments.ts';
import type { ProjectsStore, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { NewTask } from '../../../storage/types-tasks.ts';
import type { Permissions } from '../access/permissions.ts';
import type { PushEvent } from '../events.ts';
import type { TaskHandler } from '../task-queue.ts';
import type { EnvironmentStopAction } from './environment-stop.ts';
import { STOPPED } from './pipelines/deployments.ts';

export const BRANCH_ENVIRONMENTS_STOP_TASK = 'environments.stop-for-deleted-branch';

/** Environments looked at per query. */
const PAGE = 100;

interface BranchStopTask {
  projectId: number;
  branch: string;
  userId: number;
}

export interface EnvironmentBranchStopDeps {
  environments: Pick<EnvironmentsStore, 'list' | 'update'>;
  deployments: Pick<DeploymentsStore, 'lastSuccessful'>;
  projects: Pick<ProjectsStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  permissions: Pick<Permissions, 'canManageEnvironments'>;
  stopAction: Pick<EnvironmentStopAction, 'play'>;
  queue: { enqueue(task: NewTask): Promise<unknown> };
}

/**
 * Deleting a branch stops the environments it deployed (GitLab's `Environments::StopService
 * #execute_for_branch`, called when a push removes a branch): each available environment whose
 * newest successful deployment is of that branch is stopped as the pusher, when the pusher may
 * stop environments, and its `on_stop` job played; a production or staging one only when it has
 * such a job to play (GitLab's default `auto_stop_setting` of those tiers, `with_action`). The
 * push leaves a durable task; the task does the work.
 */
export class EnvironmentBranchStop {
  constructor(private readonly deps: EnvironmentBranchStopDeps) {}

  async record(push: PushEvent): Promise<void> {
    if (push.after !== ZERO_SHA || !push.ref.startsWith('refs/heads/') || push.user_id === null) return;
    const payload: BranchStopTask = { projectId: push.project_id, branch: push.ref.slice('refs/heads/'.length), userId: push.user_id };
    await this.deps.queue.enqueue({
      kind: BRANCH_ENVIRONMENTS_STOP_TASK, payload, maxAttempts: 5, dedupeKey: `${BRANCH_ENVIRONMENTS_STOP_TASK}:${push.project_id}:${push.ref}:${push.before}`,
    });
  }

  handler(): TaskHandler {
    return (task) => this.stopForBranch(task.payload as BranchStopTask).then(() => undefined);
  }

  /** Stops the branch's environments; answers their ids. Runs again without harm (stopped ones are no longer available). */
  async stopForBranch(task: BranchStopTask): Promise<number[]> {
    const { deps } = this;
    const [project, user] = await Promise.all([deps.projects.findById(task.projectId), deps.users.findById(task.userId)]);
    if (!project || !user || !(await deps.permissions.canManageEnvironments(project, user))) return [];
    return stopEnvironments(deps, user, await this.deployedFrom(project.id, task.branch));
  }

  /** The project's available environments whose newest successful deployment is of the branch. */
  private async deployedFrom(projectId: number, branch: string): Promise<EnvironmentRecord[]> {
    const found: EnvironmentRecord[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const { items } = await this.deps.environments.list(projectId, { states: ['available'] }, { offset, limit: PAGE });
      const last = items.length > 0 ? await this.deps.deployments.lastSuccessful(items.map((environment) => environment.id)) : new Map();
      found.push(...items.filter((environment) => {
        const deployment = last.get(environment.id);
        return deployment !== undefined && !deployment.tag && deployment.ref === branch;
      }));
      if (items.length < PAGE) return found;
    }
  }
}

/**
 * Stops each environment as the user (who may stop them) and plays its `on_stop` job; a
 * production or staging one only when it has such a job to play (GitLab's default
 * `auto_stop_setting` of those tiers, `with_action`). Answers the ids of those stopped.
 */
export async function stopEnvironments(
  deps: { environments: Pick<EnvironmentsStore, 'update'>; stopAction: Pick<EnvironmentStopAction, 'play'> },
  user: Pick<UserRecord, 'id'>,
  environments: readonly EnvironmentRecord[],
): Promise<number[]> {
  const stopped: number[] = [];
  for (const environment of environments) {
    const withAction = environment.tier === 'production' || environment.tier === 'staging';
    if (withAction && (await deps.stopAction.play(environment, user)) === undefined) continue;
    const updated = await deps.environments.update(environment.id, { ...STOPPED, updated_at: new Date().toISOString() });
    if (!updated) continue;
    if (!withAction) await deps.stopAction.play(updated, user);
    stopped.push(updated.id);
  }
  return stopped;
}
