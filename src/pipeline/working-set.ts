import { GantryError } from '../shared/errors.ts';
import { isAliveStatus, isStoppedStatus } from './statuses.ts';
import { canTransition } from './transitions.ts';
import type {
  FailureReason,
  JobChange,
  JobId,
  JobPatch,
  JobStatus,
  PipelineJob,
} from './types.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A copy-on-write view of a pipeline's jobs while one event is handled. Jobs are addressed
 * by their index; untouched jobs keep their original object, so the final diff is cheap.
 */
export class WorkingSet {
  private readonly original: readonly PipelineJob[];
  private readonly current: PipelineJob[];
  private readonly cloneSources = new Map<number, JobId>();
  private indexById: Map<JobId, number> | null = null;
  private revived: number[] = [];
  private highestId: number;

  constructor(jobs: readonly PipelineJob[], private readonly allocator?: () => JobId) {
    this.original = jobs;
    this.current = jobs.slice();
    this.highestId = jobs.reduce((highest, job) => Math.max(highest, job.id), 0);
  }

  get size(): number {
    return this.current.length;
  }

  job(index: number): PipelineJob {
    return this.current[index];
  }

  jobs(): readonly PipelineJob[] {
    return this.current;
  }

  /** Index of a job by id; GANTRY_E_JOB_NOT_FOUND when the pipeline has no such job. */
  indexOf(id: JobId): number {
    if (!this.indexById) {
      this.indexById = new Map();
      this.current.forEach((job, index) => this.indexById?.set(job.id, index));
    }
    const index = this.indexById.get(id);
    if (index === undefined) throw new GantryError('GANTRY_E_JOB_NOT_FOUND');
    return index;
  }

  /** Indices of jobs that count: not retried. */
  latestIndices(): number[] {
    const indices: number[] = [];
    for (let index = 0; index < this.current.length; index++) {
      if (!this.current[index].retried) indices.push(index);
    }
    return indices;
  }

  transition(
    index: number,
    to: JobStatus,
    extra: { failureReason?: FailureReason; scheduledAt?: number } = {},
  ): void {
    const job = this.current[index];
    if (!canTransition(job.status, to)) {
      throw new Error(`illegal job transition ${job.status} -> ${to} (job ${job.id})`);
    }
    const next: Mutable<PipelineJob> = { ...job, status: to };
    if (extra.failureReason !== undefined) next.failureReason = extra.failureReason;
    if (to === 'scheduled') next.scheduledAt = extra.scheduledAt ?? null;
    else if (job.status === 'scheduled') next.scheduledAt = null;
    this.current[index] = next;
    if (isStoppedStatus(job.status) && isAliveStatus(to)) this.revived.push(index);
  }

  /**
   * GitLab's `enqueue` (and `enqueue_scheduled`): to `pending`, or for a job of a
   * `resource_group` to `waiting_for_resource` until its group assigns it the resource.
   */
  enqueue(index: number): void {
    this.transition(index, enqueuedStatusOf(this.current[index]));
  }

  /**
   * A bridge taking its downstream pipeline's status: any status to `to`, outside the job
   * state machine (`Ci::Bridge`'s events transition from all), with the failure reason set
   * or cleared. Leaving a stopped status for an alive one revives the job.
   */
  inherit(index: number, to: JobStatus, failureReason: FailureReason | null): void {
    const job = this.current[index];
    this.current[index] = { ...job, status: to, failureReason };
    if (isStoppedStatus(job.status) && isAliveStatus(to)) this.revived.push(index);
  }

  markRetried(index: number): void {
    this.current[index] = { ...this.current[index], retried: true };
  }

  /** Adds a retry's copy of the job at `sourceIndex`; returns the new job's index. */
  addClone(sourceIndex: number, status: JobStatus): number {
    // A new job has no runner yet, so nothing about how its runner cancels.
    const { cancelGracefully: _runnerFeature, ...source } = this.current[sourceIndex];
    const id = this.allocateId();
    const clone: PipelineJob = {
      ...source,
      id,
      status,
      retried: false,
      failureReason: null,
      scheduledAt: null,
    };
    const index = this.current.push(clone) - 1;
    this.cloneSources.set(index, source.id);
    this.indexById?.set(id, index);
    this.markRevived(index);
    return index;
  }

  /** Records that the job at `index` became alive, so its skipped dependents get reset. */
  markRevived(index: number): void {
    this.revived.push(index);
  }

  /** Jobs revived since the last call. */
  takeRevived(): number[] {
    const revived = this.revived;
    this.revived = [];
    return revived;
  }

  /** Net changes against the jobs the set started from: creations first, then updates. */
  changes(): JobChange[] {
    const creations: JobChange[] = [];
    for (const [index, cloneOf] of this.cloneSources) {
      creations.push({ kind: 'create', cloneOf, job: this.current[index] });
    }
    const updates: JobChange[] = [];
    for (let index = 0; index < this.original.length; index++) {
      const before = this.original[index];
      const after = this.current[index];
      if (before === after) continue;
      const patch = diffJob(before, after);
      if (patch) updates.push({ kind: 'update', jobId: before.id, previousStatus: before.status, patch });
    }
    return [...creations, ...updates];
  }

  private allocateId(): JobId {
    const id = this.allocator ? this.allocator() : this.highestId + 1;
    this.highestId = Math.max(this.highestId, id);
    return id;
  }
}

/** Where `enqueue` leads a job: `waiting_for_resource` for a job of a `resource_group`, else `pending`. */
export function enqueuedStatusOf(job: Pick<PipelineJob, 'resourceGroup'>): 'pending' | 'waiting_for_resource' {
  return job.resourceGroup ? 'waiting_for_resource' : 'pending';
}

function diffJob(before: PipelineJob, after: PipelineJob): JobPatch | null {
  const patch: Mutable<JobPatch> = {};
  let changed = false;
  if (before.status !== after.status) {
    patch.status = after.status;
    changed = true;
  }
  if (before.retried !== after.retried) {
    patch.retried = after.retried;
    changed = true;
  }
  if ((before.failureReason ?? null) !== (after.failureReason ?? null)) {
    patch.failureReason = after.failureReason ?? null;
    changed = true;
  }
  if ((before.scheduledAt ?? null) !== (after.scheduledAt ?? null)) {
    patch.scheduledAt = after.scheduledAt ?? null;
    changed = true;
  }
  return changed ? patch : null;
}
