/**
 * Downstream pipelines of bridge jobs (`trigger:`), run by the durable tasks of
 * downstream-tasks.ts: child pipelines of the same project (source `parent_pipeline`) and
 * multi-project pipelines (source `pipeline`), the bridge's status (success once the
 * downstream exists; with `strategy: depend`, running and then the downstream's final status,
 * again each time the downstream runs anew),
 * and the cascade of a canceled pipeline to its children.
 */
import type { BridgeJobDefinition } from '../../../../ci/model.ts';
import { isCompletedStatus, type DownstreamBridgeStatus, type PipelineEvent, type PipelineStatus } from '../../../../pipeline/index.ts';
import type { BridgeFailureReason, FailureReason } from '../../../../pipeline/types.ts';
import { isGantryError } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { CiJobsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { PipelineRecord, PipelinesStore } from '../../../../storage/types-ci.ts';
import type { CiStores } from '../../../../storage/types-ci-transactions.ts';
import type { TaskRecord } from '../../../../storage/types-tasks.ts';
import type { ProjectsStore, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { TaskHandler } from '../../task-queue.ts';
import type { PipelineCreation } from './creation.ts';
import type { BridgeStatusTask, CancelChildrenTask, DownstreamPipelineTask } from './downstream-tasks.ts';
import type { DownstreamPlan, DownstreamTargets } from './downstream-target.ts';
import type { PipelineProcessing, ProcessedEvent } from './processing.ts';
import { isNoPipelineRefusal } from './no-pipeline.ts';
import { completing } from './push.ts';

export interface DownstreamPipelinesDeps {
  creation: Pick<PipelineCreation, 'create'>;
  processing: Pick<PipelineProcessing, 'apply' | 'applyIn' | 'notify'>;
  targets: Pick<DownstreamTargets, 'decide'>;
  projects: Pick<ProjectsStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  pipelines: Pick<PipelinesStore, 'findById' | 'listBySourceJobs'>;
  jobs: Pick<CiJobsStore, 'findById' | 'list'>;
  logger: Logger;
}

type Bridge = JobRecord & { definition: BridgeJobDefinition };

/** The bridge left `pending` (canceled, say) before its downstream pipeline was saved: nothing to do. */
class BridgeMovedOn extends Error {}

export class DownstreamPipelines {
  constructor(private readonly deps: DownstreamPipelinesDeps) {}

  /** `pipeline.create-downstream`: the bridge's downstream pipeline, or the bridge failed with GitLab's reason. */
  createHandler(): TaskHandler {
    return async (task) => {
      const { bridgeId } = task.payload as DownstreamPipelineTask;
      const bridge = await this.deps.jobs.findById(bridgeId);
      if (!bridge || bridge.status !== 'pending' || !isBridgeWithTrigger(bridge)) return;
      if ((await this.deps.pipelines.listBySourceJobs([bridge.id])).length > 0) return;
      const upstream = await this.deps.pipelines.findById(bridge.pipeline_id);
      const upstreamProject = upstream ? await this.deps.projects.findById(upstream.project_id) : undefined;
      if (!upstream || !upstreamProject) return;
      const user = bridge.user_id === null ? null : ((await this.deps.users.findById(bridge.user_id)) ?? null);
      try {
        const decision = await this.deps.targets.decide(bridge, upstream, upstreamProject, user);
        if (decision.kind === 'fail') return await this.failBridge(bridge, decision.reason, decision.errors);
        await this.createDownstream(task, bridge, upstream, decision.plan, user);
      } catch (error) {
        if (error instanceof BridgeMovedOn) return;
        const reason = refusalReason(error);
        if (reason === null && task.attempts < task.max_attempts) throw error;
        this.deps.logger.info({ bridge: bridge.id, pipeline: upstream.id, reason: reason ?? 'downstream_pipeline_creation_failed', error: String(error) }, 'bridge creates no downstream pipeline');
        // A refused creation says why, as GitLab's pipeline errors do; an internal error's text stays in the log.
        await this.failBridge(bridge, reason ?? 'downstream_pipeline_creation_failed', reason === 'downstream_pipeline_creation_failed' ? refusalMessages(error) : undefined);
      }
    };
  }

  /**
   * `pipeline.bridge-status`: a `strategy: depend` bridge takes its downstream pipeline's
   * current status, each time that pipeline finishes or runs again (a retry there): running,
   * then success, failed (also for a skipped downstream) or canceled, from whatever status the
   * bridge had, as `Ci::Bridge#inherit_status_from_downstream` and `reset_source_bridge!` do.
   * The upstream pipeline is processed in the same event, so it follows (and leaves `failed`).
   */
  statusHandler(): TaskHandler {
    return async (task) => {
      const { pipelineId } = task.payload as BridgeStatusTask;
      const downstream = await this.deps.pipelines.findById(pipelineId);
      if (!downstream || downstream.source_job_id === null) return;
      const bridge = await this.deps.jobs.findById(downstream.source_job_id);
      if (!bridge || bridge.retried || !isBridgeWithTrigger(bridge) || bridge.definition.trigger.strategy !== 'depend') return;
      // A bridge still waiting for its downstream pipeline to be saved is settled by its creation.
      if (bridge.status === 'created' || bridge.status === 'pending') return;
      const status = bridgeStatusFor(downstream.status);
      if (status === bridge.status) return;
      await this.applyIfStillPossible(bridge.pipeline_id, { type: 'downstream-status', jobId: bridge.id, status });
    };
  }

  /** `pipeline.cancel-children`: a canceled pipeline's unfinished child pipelines are canceled too (each cascades on). */
  cancelChildrenHandler(): TaskHandler {
    return async (task) => {
      const { pipelineId } = task.payload as CancelChildrenTask;
      const { items } = await this.deps.jobs.list({ pipelineId, types: ['bridge'], includeRetried: true }, { offset: 0, limit: 1000 });
      const children = await this.deps.pipelines.listBySourceJobs(items.map((bridge) => bridge.id));
      for (const child of children) {
        if (child.source !== 'parent_pipeline' || child.parent_pipeline_id !== pipelineId || isCompletedStatus(child.status)) continue;
        await this.applyIfStillPossible(child.id, { type: 'cancel-pipeline' });
      }
    };
  }

  /**
   * One transaction: the downstream pipeline with its first jobs processed, the task done,
   * and the bridge's status (success, running for `depend`, failed on a configuration error).
   */
  private async createDownstream(task: TaskRecord, bridge: Bridge, upstream: PipelineRecord, plan: DownstreamPlan, user: UserRecord | null): Promise<void> {
    let bridgeOutcome: ProcessedEvent | null = null;
    const complete = completing(task);
    await this.deps.creation.create({
      project: plan.project,
      ref: plan.ref,
      ...(plan.sha === undefined ? {} : { sha: plan.sha }),
      source: plan.source,
      user,
      variables: plan.variables,
      parent: { pipelineId: upstream.id, jobId: bridge.id },
      ...(plan.configContent === undefined ? {} : { configContent: plan.configContent }),
      ...(plan.mergeRequest === undefined ? {} : { mergeRequest: plan.mergeRequest }),
      ...(plan.inputs === undefined ? {} : { inputs: plan.inputs }),
      saveOnErrors: true,
      ignoreSkipCi: true,
      inTransaction: async (stores, downstream) => {
        await complete?.(stores, downstream);
        bridgeOutcome = await this.settleBridge(stores, bridge, downstream);
      },
    });
    if (bridgeOutcome) this.deps.processing.notify(bridgeOutcome);
  }

  private async settleBridge(stores: CiStores, bridge: Bridge, downstream: PipelineRecord): Promise<ProcessedEvent> {
    await stores.pipelines.lockForProcessing(bridge.pipeline_id);
    const current = await stores.jobs.findById(bridge.id);
    if (!current || current.status !== 'pending') throw new BridgeMovedOn();
    if (downstream.failure_reason === null) {
      const status = bridge.definition.trigger.strategy === 'depend' ? 'running' : 'success';
      return this.deps.processing.applyIn(stores, bridge.pipeline_id, { type: 'job-status', jobId: bridge.id, status }, {});
    }
    const failed = await this.deps.processing.applyIn(stores, bridge.pipeline_id, { type: 'job-status', jobId: bridge.id, status: 'failed', failureReason: 'downstream_pipeline_creation_failed' }, {});
    // The saved pipeline's configuration errors are the bridge's downstream errors too, as in GitLab.
    if (downstream.yaml_errors) await stores.jobs.update(bridge.id, { downstream_errors: [downstream.yaml_errors] });
    return failed;
  }

  /** The bridge fails; `errors`, why its downstream pipeline was not created, are kept on it in the same transaction. */
  private async failBridge(bridge: Bridge, reason: BridgeFailureReason | FailureReason, errors?: readonly string[]): Promise<void> {
    const keepErrors = errors && errors.length > 0 ? async (stores: CiStores) => void (await stores.jobs.update(bridge.id, { downstream_errors: [...errors] })) : undefined;
    await this.applyIfStillPossible(bridge.pipeline_id, { type: 'job-status', jobId: bridge.id, status: 'failed', failureReason: reason }, keepErrors);
  }

  /** Applies the event unless the job or pipeline went away or moved on meanwhile (a rerun after a crash, a user's cancel). */
  private async applyIfStillPossible(pipelineId: number, event: PipelineEvent, alongside?: (stores: CiStores) => Promise<void>): Promise<void> {
    try {
      await this.deps.processing.apply(pipelineId, event, {}, alongside);
    } catch (error) {
      if (isGantryError(error) && ['GANTRY_E_PIPELINE_NOT_FOUND', 'GANTRY_E_JOB_NOT_FOUND', 'GANTRY_E_JOB_TRANSITION_INVALID'].includes(error.code)) return;
      throw error;
    }
  }
}

/** `inherit_dependent_status_from_downstream!`: skipped counts as failed; a downstream not finished keeps the bridge running. */
function bridgeStatusFor(downstream: PipelineStatus): DownstreamBridgeStatus {
  if (!isCompletedStatus(downstream)) return 'running';
  if (downstream === 'success' || downstream === 'canceled') return downstream;
  return 'failed';
}

function isBridgeWithTrigger(job: JobRecord): job is Bridge {
  return job.type === 'bridge' && job.definition !== null && job.definition.trigger !== null;
}

/** GitLab's messages of a refused creation ("Pipeline filtered out by workflow rules.", "Missing .gitlab-ci.yml file"). */
function refusalMessages(error: unknown): string[] | undefined {
  if (!isNoPipelineRefusal(error)) return undefined;
  return [...(error.details.fields?.base ?? [error.message])];
}

/** A creation refusal as a bridge failure reason; null for errors worth another attempt. */
function refusalReason(error: unknown): BridgeFailureReason | null {
  if (!isNoPipelineRefusal(error)) return null;
  // Protected refs are the user's rights; the rest (no CI file, workflow rules, ref or commit gone, CI off) a refused creation.
  return error.code === 'GANTRY_E_PIPELINE_REF_FORBIDDEN' ? 'insufficient_bridge_permissions' : 'downstream_pipeline_creation_failed';
}
