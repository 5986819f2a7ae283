/**
 * What the jobs API lets a caller do to a trigger job (bridge), as GitLab's `Ci::BridgePolicy`
 * and `Ci::Bridge` decide: play a manual one (`PlayBridgeService`) and retry a finished one
 * (`RetryJobService`); cancel and erase stay builds-only. The API's single bridge and the
 * pipeline page's rows ask the same batch questions, so their answers cannot drift.
 */
import { GantryError } from '../../../../shared/errors.ts';
import type { ProjectRecord } from '../../../../storage/types.ts';
import type { JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { DeploymentsStore } from '../../../../storage/types-environments.ts';
import type { Actor, Permissions } from '../../access/permissions.ts';
import type { ProtectedBranchesService } from '../../repository/protected-branches.ts';
import type { DownstreamRunTarget, DownstreamTargets } from './downstream-target.ts';
import { jobsWithOutdatedDeployment } from './forward-deployments.ts';

export interface BridgeActionDeps {
  permissions: Pick<Permissions, 'canUpdateBridge' | 'canPlayBridge'>;
  /** Where each bridge's downstream pipeline runs, resolved as its creation resolves it. */
  targets: Pick<DownstreamTargets, 'runTargets'>;
  branches: Pick<ProtectedBranchesService, 'canPush' | 'canMerge'>;
  /** The bridges' deployments and their environments' last ones (GitLab's `has_outdated_deployment?`). */
  deployments: Pick<DeploymentsStore, 'listForPipeline' | 'lastSuccessful'>;
}

/** Failure reasons after which GitLab's `Ci::Bridge#retryable?` refuses a retry: it would fail again. */
const UNRETRYABLE_FAILURES: ReadonlySet<string> = new Set(['pipeline_loop_detected', 'reached_max_descendant_pipelines_depth']);

/** The statuses a retry starts again from (the state rules' `retryable?`, `canceling` aside: it has no button). */
const FINISHED: ReadonlySet<string> = new Set(['success', 'failed', 'canceled']);

function failedForGood(bridge: JobRecord): boolean {
  return bridge.status === 'failed' && bridge.failure_reason !== null && UNRETRYABLE_FAILURES.has(bridge.failure_reason);
}

export class BridgeActions {
  constructor(private readonly deps: BridgeActionDeps) {}

  /** The ids of the project's bridges the actor may retry (`update_build`). */
  async mayRetry(project: ProjectRecord, actor: Actor, bridges: readonly JobRecord[]): Promise<Set<number>> {
    return (await this.rights(project, actor, { retry: bridges, play: [] })).retry;
  }

  /**
   * The ids of the project's bridges the actor may play (`play_job`): updating the bridge, and
   * pushing or merging to the branch the downstream pipeline runs for, in the project it runs
   * in (`DownstreamTargets.runTargets`). A bridge whose downstream project does not exist is refused.
   */
  async mayPlay(project: ProjectRecord, actor: Actor, bridges: readonly JobRecord[]): Promise<Set<number>> {
    return (await this.rights(project, actor, { retry: [], play: bridges })).play;
  }

  /** Both questions for a page of bridges at once (their deployments read once). */
  async rights(project: ProjectRecord, actor: Actor, asked: { retry: readonly JobRecord[]; play: readonly JobRecord[] }): Promise<{ retry: Set<number>; play: Set<number> }> {
    const rights = { retry: new Set<number>(), play: new Set<number>() };
    if (!actor || (asked.retry.length === 0 && asked.play.length === 0)) return rights;
    const [outdated, targets] = await Promise.all([
      jobsWithOutdatedDeployment(this.deps.deployments, project, [...asked.retry, ...asked.play]),
      asked.play.length > 0 ? this.deps.targets.runTargets(project, asked.play) : new Map<number, DownstreamRunTarget>(),
    ]);
    const { permissions } = this.deps;
    for (const bridge of asked.retry) {
      if (await permissions.canUpdateBridge(project, actor, outdated.has(bridge.id))) rights.retry.add(bridge.id);
    }
    // Bridges sharing a downstream project and branch share one answer.
    const writable = new Map<string, Promise<boolean>>();
    const branchWritable = (target: DownstreamRunTarget): Promise<boolean> => {
      const key = `${target.project.id}\n${target.ref}`;
      const known = writable.get(key) ?? this.mayUpdateBranch(target, actor);
      writable.set(key, known);
      return known;
    };
    for (const bridge of asked.play) {
      const target = targets.get(bridge.id);
      const downstreamWritable = target !== undefined && (await branchWritable(target));
      if (await permissions.canPlayBridge(project, actor, downstreamWritable, outdated.has(bridge.id))) rights.play.add(bridge.id);
    }
    return rights;
  }

  /** GitLab's `Bridge#playable?`: a manual bridge only (a finished one is retried instead); 400 "Unplayable Job" otherwise. */
  assertPlayable(bridge: JobRecord): void {
    if (bridge.status !== 'manual' || bridge.retried) throw new GantryError('GANTRY_E_JOB_NOT_PLAYABLE', 'Unplayable Job');
  }

  /** `Bridge#retryable?`: not after a loop or the nesting limit (the state rules check the rest). */
  assertRetryable(bridge: JobRecord): void {
    if (failedForGood(bridge)) throw new GantryError('GANTRY_E_JOB_NOT_RETRYABLE', 'Job is not retryable', { reason: 'Job is not retryable' });
  }

  /** Whether a retry would be taken (the page's retry button): the latest attempt, finished, and not failed for good. */
  isRetryable(bridge: JobRecord): boolean {
    return !bridge.retried && FINISHED.has(bridge.status) && !failedForGood(bridge);
  }

  private async mayUpdateBranch(target: DownstreamRunTarget, actor: NonNullable<Actor>): Promise<boolean> {
    const { branches } = this.deps;
    return (await branches.canPush(target.project, actor, target.ref)) || (await branches.canMerge(target.project, actor, target.ref));
  }
}
