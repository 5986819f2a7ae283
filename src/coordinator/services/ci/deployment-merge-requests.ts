/**
 * GitLab's `Deployments::LinkMergeRequestsService`: a successful deployment is linked to the
 * merged requests it shipped, which the merge request lists filter on (`environment`,
 * `deployed_before`, `deployed_after`). Processing records a task with the deployment's move to
 * `success`; the task does the git walk, so the processing transaction runs no git.
 */
import type { RepositoryManager } from '../../../storage/git/types.ts';
import type { DeploymentRecord, DeploymentsStore, EnvironmentsStore } from '../../../storage/types-environments.ts';
import type { CiStores } from '../../../storage/types-ci-transactions.ts';
import type { TaskHandler } from '../task-queue.ts';

export const DEPLOYMENT_MERGE_REQUESTS_TASK = 'deployment.succeeded.link-merge-requests';

/** Commits one link walks at most: a deployment far from the previous one links the newest of them. */
export const LINKED_COMMITS_LIMIT = 10_000;

interface DeploymentLinkTask {
  deploymentId: number;
}

/** In the transaction that moves the deployment to `success`: its link task (one per deployment). */
export async function recordDeploymentLinks(stores: Pick<CiStores, 'tasks'>, deploymentId: number, now: string): Promise<void> {
  const payload: DeploymentLinkTask = { deploymentId };
  await stores.tasks.enqueue({ kind: DEPLOYMENT_MERGE_REQUESTS_TASK, payload, maxAttempts: 10, dedupeKey: `${DEPLOYMENT_MERGE_REQUESTS_TASK}:${deploymentId}` }, now);
}

export interface DeploymentMergeRequestLinksDeps {
  deployments: Pick<DeploymentsStore, 'findById' | 'previousSuccessful' | 'linkMergedRequests'>;
  environments: Pick<EnvironmentsStore, 'findInProject'>;
  repositories: Pick<RepositoryManager, 'open' | 'exists'>;
  commitLimit?: number;
}

export class DeploymentMergeRequestLinks {
  constructor(private readonly deps: DeploymentMergeRequestLinksDeps) {}

  handler(): TaskHandler {
    return async (task) => {
      const { deploymentId } = task.payload as DeploymentLinkTask;
      const deployment = await this.deps.deployments.findById(deploymentId);
      if (deployment) await this.link(deployment);
    };
  }

  /**
   * Links the merged requests (merge or squash commit; a fast-forward's merge commit is its
   * head) between the environment's previous successful deployment and this one; a first
   * deployment links those merged into its branch among the commits up to its sha. Review apps
   * (an environment in a folder, `review/...`: GitLab's `environment_type`) link nothing.
   * Running it again adds nothing. A project whose repository is gone (deleted, or never made)
   * links nothing: retrying would not bring it back.
   */
  async link(deployment: DeploymentRecord): Promise<number> {
    if (deployment.status !== 'success') return 0;
    if (!(await this.deps.repositories.exists(deployment.project_id))) return 0;
    const environment = await this.deps.environments.findInProject(deployment.project_id, deployment.environment_id);
    if (!environment || environment.name.includes('/')) return 0;
    const previous = await this.deps.deployments.previousSuccessful(deployment);
    const limit = this.deps.commitLimit ?? LINKED_COMMITS_LIMIT;
    const repository = this.deps.repositories.open(deployment.project_id);
    if (previous) {
      const commitIds = await repository.newCommitIds(deployment.sha, [previous.sha], limit);
      return this.deps.deployments.linkMergedRequests(deployment, commitIds);
    }
    if (deployment.tag) return 0;
    const commitIds = await repository.newCommitIds(deployment.sha, [], limit);
    return this.deps.deployments.linkMergedRequests(deployment, commitIds, deployment.ref);
  }
}
