/**
 * What the jobs API lets a caller do to a trigger job (bridge), as GitLab's `Ci::BridgePolicy`
 * and `Ci::Bridge` decide: play a manual one (`PlayBridgeService`) and retry a finished one
 * (`RetryJobService`); cancel and erase stay builds-only.
 */
import { GantryError } from '../../../../shared/errors.ts';
import type { ProjectRecord } from '../../../../storage/types.ts';
import type { JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { Actor } from '../../access/permissions.ts';
import type { ProtectedBranchesService } from '../../repository/protected-branches.ts';
import { expandVariables } from './job-records.ts';

export interface BridgeActionDeps {
  lookup: Pick<Lookup, 'findProject'>;
  branches: Pick<ProtectedBranchesService, 'canPush' | 'canMerge'>;
}

/** Failure reasons after which GitLab's `Ci::Bridge#retryable?` refuses a retry: it would fail again. */
const UNRETRYABLE_FAILURES: ReadonlySet<string> = new Set(['pipeline_loop_detected', 'reached_max_descendant_pipelines_depth']);

export class BridgeActions {
  constructor(private readonly deps: BridgeActionDeps) {}

  /**
   * `play_job` of a bridge beyond updating it (`can_update_downstream_branch`): the caller may push or merge to the
   * branch the downstream pipeline runs for, in the project it runs in (a child pipeline: this
   * project and the bridge's ref; a multi-project one: `trigger:project`, at `trigger:branch` or
   * that project's default branch). A downstream project that does not exist refuses.
   */
  async mayPlay(project: ProjectRecord, actor: Actor, bridge: JobRecord): Promise<boolean> {
    const target = await this.downstreamTarget(project, bridge);
    if (!actor || !target) return false;
    const { branches } = this.deps;
    return (await branches.canPush(target.project, actor, target.ref)) || (await branches.canMerge(target.project, actor, target.ref));
  }

  /** GitLab's `Bridge#playable?`: a manual bridge only (a finished one is retried instead); 400 "Unplayable Job" otherwise. */
  assertPlayable(bridge: JobRecord): void {
    if (bridge.status !== 'manual' || bridge.retried) throw new GantryError('GANTRY_E_JOB_NOT_PLAYABLE', 'Unplayable Job');
  }

  /** `Bridge#retryable?`: not after a loop or the nesting limit (the state rules check the rest). */
  assertRetryable(bridge: JobRecord): void {
    if (bridge.status === 'failed' && bridge.failure_reason !== null && UNRETRYABLE_FAILURES.has(bridge.failure_reason)) {
      throw new GantryError('GANTRY_E_JOB_NOT_RETRYABLE', 'Job is not retryable', { reason: 'Job is not retryable' });
    }
  }

  /** The project and branch the bridge's downstream pipeline runs for; undefined when the project is unknown. */
  private async downstreamTarget(project: ProjectRecord, bridge: JobRecord): Promise<{ project: ProjectRecord; ref: string } | undefined> {
    const trigger = bridge.definition?.trigger;
    if (!trigger || trigger.kind === 'child') return { project, ref: bridge.ref };
    // The bridge's own variables name the target here; the downstream creation expands with its full scope.
    const variables = bridge.definition?.variables ?? [];
    const path = expandVariables(trigger.project, variables).trim();
    const downstream = path.includes('/') ? await this.deps.lookup.findProject(path) : undefined;
    if (!downstream || downstream.pending_delete) return undefined;
    const ref = trigger.branch === null ? downstream.default_branch : expandVariables(trigger.branch, variables).trim();
    return ref ? { project: downstream, ref } : undefined;
  }
}
