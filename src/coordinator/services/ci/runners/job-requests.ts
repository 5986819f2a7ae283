import type { JobPayload } from '../../../../protocol/job-payload.ts';
import { GantryError } from '../../../../shared/errors.ts';
import { isRetryableConflict } from '../../../../storage/errors.ts';
import { StaleJobError, type JobQueueStore, type JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { CiStores, CiTransactions } from '../../../../storage/types-ci-transactions.ts';
import type { RunnerInfo, RunnerRecord, RunnersStore } from '../../../../storage/types-runners.ts';
import type { PipelineProcessing, ProcessedEvent } from '../pipelines/processing.ts';
import {
  buildDefinitionOf, isValidDependency, lacksRunnerFeature, type ClaimRefusal, type RunnerFeatures,
} from './claim-checks.ts';
import { dependencyJobsOf, mayHaveDependencies, pipelineBuilds } from '../pipelines/job-dependencies.ts';
import { crossPipelineDependenciesOf, hasCrossPipelineDependencies } from './cross-pipeline-dependencies.ts';
import type { ClaimedJob, JobPayloads } from './job-payloads.ts';
import { jobTokenDigest, newJobToken } from './job-tokens.ts';
import type { JobQueueWakeups } from './queue-wakeups.ts';
import { CONTACT_WRITE_INTERVAL_MS, type ManagerReport, type RunnerManagerHeartbeats } from './manager-heartbeats.ts';
import { reported } from './registration.ts';
import { isTokenExpired } from './token-expiry.ts';

/** Default long poll of an idle job request (GitLab's documented Workhorse setting). */
export const DEFAULT_LONG_POLL_MS = 50_000;
/** The runner gives up on response headers after 10 minutes (reference §1): stay well below. */
export const MAX_LONG_POLL_MS = 9 * 60_000;
/** Claimed jobs dropped (refused) in one request before answering 204 anyway. */
const MAX_DROPS_PER_REQUEST = 25;
/** Database conflicts (deadlock, busy) retried before answering 409. */
const MAX_CONFLICTS = 3;

export interface JobRequestInput extends ManagerReport {
  /** The runner's authentication token. */
  token: string;
  /** The `X-GitLab-Last-Update` value the runner last received. */
  lastUpdate?: string;
  features?: RunnerFeatures;
}

/** 201 with the payload; 204 with the queue value (none: leave the header out); 409 on a lost race. */
export type JobRequestOutcome = { kind: 'job'; payload: JobPayload } | { kind: 'none'; lastUpdate: string } | { kind: 'conflict' };

export interface JobRequestsDeps {
  runners: Pick<RunnersStore, 'findByToken' | 'heartbeat'>;
  heartbeats: Pick<RunnerManagerHeartbeats, 'heartbeat'>;
  /** Outside transactions: the lock-free look before a claim. */
  queue: Pick<JobQueueStore, 'hasCandidate'>;
  transactions: CiTransactions;
  processing: Pick<PipelineProcessing, 'applyIn' | 'apply' | 'notify'>;
  payloads: Pick<JobPayloads, 'build'>;
  wakeups: JobQueueWakeups;
  /** How long an idle request of a runner that has seen the current queue value is held (0: never). */
  longPollMs?: number;
  clock?: () => number;
}

interface ClaimAttempt {
  claimed: ClaimedJob | undefined;
  refusal: ClaimRefusal | null;
  processed: ProcessedEvent | undefined;
}

/**
 * `POST /jobs/request` (reference §3): authenticate the runner, then hand it a pending job it
 * matches, moved to `running` with a fresh job token, or hold the request while nothing new
 * is queued (long polling, §3.3) and answer 204 with the queue value.
 *
 * The claim and the pipeline's move are one transaction: the store's atomic claim sets the
 * job running, then processing (a `process` event, under the pipeline's lock) moves the
 * stages and the pipeline in the same transaction, so no crash leaves a running job in a
 * pending pipeline. Jobs a runner may not run after all (a definition that is not a build,
 * a feature the runner lacks, dependencies whose artifacts expired, a needed job of another
 * pipeline of the hierarchy that is not there) fail in that same
 * transaction, and so does the job of an archived project (the claim statement reads the
 * project's flag).
 */
export class JobRequests {
  private readonly clock: () => number;
  private readonly longPollMs: number;
  private wokenClaims: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: JobRequestsDeps) {
    this.clock = deps.clock ?? Date.now;
    this.longPollMs = Math.min(Math.max(0, deps.longPollMs ?? DEFAULT_LONG_POLL_MS), MAX_LONG_POLL_MS);
  }

  /** `whenGone` gives a signal aborted when the runner hangs up; asked for only by a request that waits. */
  async request(input: JobRequestInput, whenGone?: () => AbortSignal): Promise<JobRequestOutcome> {
    const runner = await this.authenticate(input);
    const { wakeups } = this.deps;
    if (!runner.active) return { kind: 'none', lastUpdate: wakeups.current() };
    const deadline = this.clock() + this.longPollMs;
    // Only a runner that has seen the current value waits; a stale or absent one is answered at once.
    const polling = this.longPollMs > 0 && input.lastUpdate !== undefined && input.lastUpdate === wakeups.current();
    let seen = wakeups.current();
    const abort = polling ? whenGone?.() : undefined;
    if (polling) {
      const outcome = await wakeups.wait(seen, deadline - this.clock(), abort);
      if (outcome !== 'changed') return { kind: 'none', lastUpdate: wakeups.current() };
    }
    for (;;) {
      if (abort?.aborted) return { kind: 'none', lastUpdate: wakeups.current() };
      seen = wakeups.current();
      const claim = () => this.claim(runner, input.features ?? {});
      const outcome = await (polling ? this.oneAtATime(claim) : claim());
      if (outcome || !polling) return outcome ?? { kind: 'none', lastUpdate: seen };
      // Woken, but nothing for this runner: wait out the rest of the poll instead of a round trip.
      const waited = await wakeups.wait(seen, deadline - this.clock(), abort);
      if (waited !== 'changed') return { kind: 'none', lastUpdate: wakeups.current() };
    }
  }

  /** Ends the waiting polls (204) and refuses to wait from now on (the coordinator is closing). */
  close(): void {
    this.deps.wakeups.close();
  }

  /**
   * GitLab's `authenticate_runner!`: 403 for an unknown or expired token; the runner's and its
   * host's heartbeat written when something changed or a minute passed.
   */
  private async authenticate(input: JobRequestInput): Promise<RunnerRecord> {
    const runner = input.token === '' ? undefined : await this.deps.runners.findByToken(input.token);
    const nowMs = this.clock();
    if (!runner || isTokenExpired(runner, nowMs)) throw new GantryError('GANTRY_E_RUNNER_TOKEN_INVALID');
    await this.deps.heartbeats.heartbeat(runner.id, input);
    const fields = reported(input);
    const contactDue = runner.contacted_at === null || nowMs - Date.parse(runner.contacted_at) >= CONTACT_WRITE_INTERVAL_MS;
    const changed = (Object.keys(fields) as (keyof RunnerInfo)[]).some((key) => fields[key] !== runner[key]);
    if (contactDue || changed) await this.deps.runners.heartbeat(runner.id, fields, new Date(nowMs).toISOString());
    return runner;
  }

  /**
   * Woken polls look, claim and build their payload one at a time: a tick wakes every poll at
   * once, and run together their claims would queue ahead of the winner's payload reads. One
   * at a time, the first takes the job and answers; the others' looks then find nothing,
   * cheaply, without a transaction.
   */
  private oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const result = this.wokenClaims.then(work);
    this.wokenClaims = result.catch(() => undefined);
    return result;
  }

  /** A job for the runner (undefined: none), trying again past refused jobs and database conflicts. */
  private async claim(runner: RunnerRecord, features: RunnerFeatures): Promise<JobRequestOutcome | undefined> {
    let conflicts = 0;
    for (let drops = 0; drops < MAX_DROPS_PER_REQUEST; ) {
      const step = async (): Promise<ClaimAttempt | undefined> => {
        if (!(await this.deps.queue.hasCandidate(runner))) return undefined;
        const token = newJobToken();
        return this.deps.transactions.run((stores) => this.claimIn(stores, runner, features, token));
      };
      let attempt: ClaimAttempt | undefined;
      try {
        attempt = await step();
        if (!attempt) return undefined;
      } catch (error) {
        if (!(error instanceof StaleJobError || isRetryableConflict(error))) throw error;
        if (++conflicts >= MAX_CONFLICTS) return { kind: 'conflict' };
        continue;
      }
      if (attempt.processed) this.deps.processing.notify(attempt.processed);
      if (attempt.refusal) {
        drops += 1;
        continue;
      }
      const { claimed } = attempt;
      if (!claimed) return undefined;
      return { kind: 'job', payload: await this.deps.payloads.build(claimed, runner) };
    }
    return undefined;
  }

  private async claimIn(stores: CiStores, runner: RunnerRecord, features: RunnerFeatures, token: string): Promise<ClaimAttempt> {
    const now = new Date(this.clock()).toISOString();
    const taken = await stores.jobQueue.claim(runner, { now, tokenDigest: jobTokenDigest(token), cancelGracefully: features.cancel_gracefully === true });
    if (!taken) return { claimed: undefined, refusal: null, processed: undefined };
    const { job } = taken;
    const definition = buildDefinitionOf(job);
    let refusal: ClaimRefusal | null = null;
    let dependencies: JobRecord[] = [];
    if (!definition) refusal = 'data_integrity_failure';
    else if (lacksRunnerFeature(definition, features)) refusal = 'runner_unsupported';
    else {
      if (mayHaveDependencies(job, definition)) {
        dependencies = dependencyJobsOf(job, definition, await pipelineBuilds(stores.jobs, job.pipeline_id));
        if (!dependencies.every((dependency) => isValidDependency(dependency, now))) refusal = 'missing_dependency_failure';
      }
      if (refusal === null && hasCrossPipelineDependencies(definition)) {
        const cross = await crossPipelineDependenciesOf(stores, job, definition);
        if (!cross.valid) refusal = 'missing_dependency_failure';
        dependencies = [...dependencies, ...cross.jobs.filter((other) => !dependencies.some((local) => local.id === other.id))];
      }
    }
    if (refusal === null && taken.projectArchived) refusal = 'archived_failure';
    const processed = await this.deps.processing.applyIn(
      stores,
      job.pipeline_id,
      refusal ? { type: 'job-status', jobId: job.id, status: 'failed', failureReason: refusal } : { type: 'process' },
    );
    return { claimed: definition && { job, definition, token, dependencies }, refusal, processed };
  }
}
