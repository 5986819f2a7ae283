import { isCompletedStatus, type JobStatus, type PipelineEvent } from '../../../../pipeline/index.ts';
import { accessDenied, GantryError } from '../../../../shared/errors.ts';
import type { ProjectRecord, ProjectsStore } from '../../../../storage/types.ts';
import type { ArtifactStore, TraceStore } from '../../../../storage/types-blobs.ts';
import type { CiJobsStore, JobArtifactsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { Page } from '../../../../storage/types-ci.ts';
import type { DeploymentsStore } from '../../../../storage/types-environments.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { Actor, Permissions } from '../../access/permissions.ts';
import type { ProtectedBranchesService } from '../../repository/protected-branches.ts';
import type { ProtectedTagsService } from '../../repository/protected-tags.ts';
import { availableArchive } from './artifact-rules.ts';
import type { BridgeActions } from './bridge-actions.ts';
import { jobsWithOutdatedDeployment } from './forward-deployments.ts';
import type { CiProject, JobView, JobViews } from './job-views.ts';
import type { PipelineProcessing } from './processing.ts';
import type { JobTokenAccess } from '../runners/job-token-access.ts';

/** Who may write a job's ref: whether it is protected, and whether the caller may push or merge there. */
export interface RefAccess {
  protected: boolean;
  writable: boolean;
}

export interface RefRules {
  branches: Pick<ProtectedBranchesService, 'isProtected' | 'canPush' | 'canMerge'>;
  tags: Pick<ProtectedTagsService, 'protectionFor' | 'canCreate'>;
}

export interface JobsServiceDeps {
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'canReadJobs' | 'canUpdateJob' | 'canEraseJob'>;
  jobs: Pick<CiJobsStore, 'list' | 'findInProject' | 'findById' | 'update'>;
  jobArtifacts: Pick<JobArtifactsStore, 'find' | 'listForJobs' | 'deleteForJob' | 'clearExpiry'>;
  /** The jobs' deployments (per pipeline) and their environments' last ones (forward deployment). */
  deployments: Pick<DeploymentsStore, 'listForPipeline' | 'lastSuccessful'>;
  processing: Pick<PipelineProcessing, 'apply'>;
  /** Play and retry of trigger jobs (bridges). */
  bridges: BridgeActions;
  views: JobViews;
  refRules: RefRules;
  traces: Pick<TraceStore, 'size' | 'remove'>;
  artifactFiles: Pick<ArtifactStore, 'remove'>;
  /** `GET /job`: the running job a job token belongs to. */
  jobTokens: Pick<JobTokenAccess, 'currentJob'>;
  projects: Pick<ProjectsStore, 'findById'>;
  /** Epoch milliseconds. */
  clock?: () => number;
}

/**
 * `/projects/:id/jobs[...]`: the project's builds (bridges and external statuses are not
 * jobs here, as in GitLab), their actions through the pipeline's state rules, erase and keep;
 * play and retry act on trigger jobs (bridges) too (GitLab's `find_job!`).
 * Order of checks: project (404), reading jobs (403), the job (404), the action's right (403),
 * then the job's state.
 */
export class JobsService {
  private readonly clock: () => number;

  constructor(private readonly deps: JobsServiceDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** The project when the caller may read its jobs: 404 when it cannot see the project, 403 when jobs are hidden from it. */
  async readable(projectRef: string, actor: Actor): Promise<CiProject> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canReadJobs(project, actor))) throw accessDenied();
    return this.deps.views.target(project);
  }

  /** Newest first, retried jobs included; `statuses` narrows to those (the `scope` parameter). */
  async list(projectRef: string, actor: Actor, statuses: readonly JobStatus[] | undefined, page: Page): Promise<{ items: JobView[]; total: number }> {
    const target = await this.readable(projectRef, actor);
    const filter = { projectId: target.project.id, types: ['build'] as const, includeRetried: true, sort: 'desc' as const, ...(statuses?.length ? { statuses } : {}) };
    const { items, total } = await this.deps.jobs.list(filter, page);
    return { items: await this.deps.views.many(target, items), total };
  }

  async get(projectRef: string, actor: Actor, jobId: number): Promise<JobView> {
    const target = await this.readable(projectRef, actor);
    return this.deps.views.one(target, await this.build(target.project, jobId));
  }

  /** `GET /job` (GitLab 13): the running job of a job token, as the jobs API shows it; 401 for any other token. */
  async current(token: string | undefined): Promise<JobView> {
    const job = await this.deps.jobTokens.currentJob(token);
    const project = job && (await this.deps.projects.findById(job.project_id));
    if (!job || !project) throw new GantryError('GANTRY_E_AUTHENTICATION_REQUIRED');
    return this.deps.views.one(await this.deps.views.target(project), job);
  }

  /** A build of the project, else 404 Job Not Found. */
  async build(project: ProjectRecord, jobId: number): Promise<JobRecord> {
    const job = await this.deps.jobs.findInProject(project.id, jobId);
    if (!job || job.type !== 'build') throw new GantryError('GANTRY_E_JOB_NOT_FOUND');
    return job;
  }

  /** A build or a trigger job (bridge) of the project (GitLab's `find_job!`), else 404 Job Not Found. */
  async processable(project: ProjectRecord, jobId: number): Promise<JobRecord> {
    const job = await this.deps.jobs.findInProject(project.id, jobId);
    if (!job || (job.type !== 'build' && job.type !== 'bridge')) throw new GantryError('GANTRY_E_JOB_NOT_FOUND');
    return job;
  }

  /** `force` ends a `canceling` job at once (GitLab 17's force cancel, for a runner that never reports). */
  cancel(projectRef: string, actor: Actor, jobId: number, force = false): Promise<JobView> {
    return this.act(projectRef, actor, jobId, (job) => ({ type: 'cancel-job', jobId: job.id, ...(force ? { force: true } : {}) }));
  }

  /**
   * The new job (pending); 403 "Job is not retryable" unless the job finished. A bridge's new
   * attempt triggers its downstream pipeline again.
   */
  async retry(projectRef: string, actor: Actor, jobId: number): Promise<JobView> {
    const { target, job } = await this.forAction(projectRef, actor, jobId, async (project, found) =>
      found.type === 'bridge' ? (await this.deps.bridges.mayRetry(project, actor, [found])).has(found.id) : this.mayUpdate(project, actor, found),
    'processable');
    if (job.type === 'bridge') this.deps.bridges.assertRetryable(job);
    return this.run(target, job, actor, { type: 'retry-job', jobId: job.id });
  }

  /**
   * Enqueues a manual or scheduled action (a finished one is retried); 400 "Unplayable Job" otherwise.
   * A manual bridge is enqueued, which creates its downstream pipeline; who may update the
   * downstream branch may play it (bridge-actions.ts).
   */
  async play(projectRef: string, actor: Actor, jobId: number): Promise<JobView> {
    const { target, job } = await this.forAction(projectRef, actor, jobId, async (project, found) =>
      found.type === 'bridge' ? (await this.deps.bridges.mayPlay(project, actor, [found])).has(found.id) : this.mayUpdate(project, actor, found),
    'processable');
    if (job.type === 'bridge') this.deps.bridges.assertPlayable(job);
    return this.run(target, job, actor, { type: 'play-job', jobId: job.id });
  }

  /**
   * Removes the trace and the artifacts of a finished job and records when. The records go
   * first, in the database; then the files (a crash between leaves unreferenced files, never
   * a record pointing at nothing).
   */
  async erase(projectRef: string, actor: Actor, jobId: number): Promise<JobView> {
    const { target, job } = await this.forAction(projectRef, actor, jobId, async (project, found) =>
      this.deps.permissions.canEraseJob(project, actor, found, await this.refAccess(project, actor, found), await this.hasOutdatedDeployment(project, found)),
    );
    const { jobArtifacts, traces, artifactFiles, jobs } = this.deps;
    // Any artifact counts (reports too: a job may upload a junit report and no archive).
    const hasArtifacts = (await jobArtifacts.listForJobs([job.id])).length > 0;
    if (!isCompletedStatus(job.status) || (!hasArtifacts && (await traces.size(job.id)) === 0)) {
      throw new GantryError('GANTRY_E_JOB_NOT_ERASABLE', 'Job is not erasable!', { reason: 'Job is not erasable!' });
    }
    const now = new Date(this.clock()).toISOString();
    const paths = await jobArtifacts.deleteForJob(job.id);
    await jobs.update(job.id, { erased_at: now, artifacts_expire_at: null, trace_size: null, trace_checksum: null, updated_at: now });
    for (const path of paths) await artifactFiles.remove(path);
    await traces.remove(job.id);
    return this.deps.views.one(target, (await jobs.findById(job.id)) ?? job);
  }

  /** `artifacts/keep`: the archive no longer expires; 404 when the job has no (unexpired) archive. */
  async keepArtifacts(projectRef: string, actor: Actor, jobId: number): Promise<JobView> {
    const { target, job } = await this.forAction(projectRef, actor, jobId, (project, found) => this.mayUpdate(project, actor, found));
    const { jobArtifacts, jobs } = this.deps;
    const now = new Date(this.clock()).toISOString();
    if (!availableArchive(job, await jobArtifacts.find(job.id, 'archive'), now)) throw new GantryError('GANTRY_E_ARTIFACT_NOT_FOUND');
    await jobArtifacts.clearExpiry(job.id);
    await jobs.update(job.id, { artifacts_expire_at: null, updated_at: now });
    return this.deps.views.one(target, (await jobs.findById(job.id)) ?? job);
  }

  /** Whether a protected ref guards the job, and whether the caller may push or merge there (create, for tags). */
  async refAccess(project: ProjectRecord, actor: Actor, job: Pick<JobRecord, 'ref' | 'tag'>): Promise<RefAccess> {
    const { branches, tags } = this.deps.refRules;
    if (job.tag) {
      if ((await tags.protectionFor(project, job.ref)) === null) return { protected: false, writable: true };
      return { protected: true, writable: await tags.canCreate(project, actor, job.ref) };
    }
    if (!(await branches.isProtected(project, job.ref))) return { protected: false, writable: true };
    const writable = (await branches.canPush(project, actor, job.ref)) || (await branches.canMerge(project, actor, job.ref));
    return { protected: true, writable };
  }

  /** Whether the caller may cancel or retry the job (the page shows those buttons only then). */
  async canUpdate(project: ProjectRecord, actor: Actor, job: JobRecord): Promise<boolean> {
    return actor !== null && this.mayUpdate(project, actor, job);
  }

  /**
   * The trigger jobs (bridges) of the project the caller may play and retry, by the rules
   * `play` and `retry` apply (the pipeline page shows their buttons only then): play is asked
   * of manual ones only and retry of retryable ones (not after a loop or the nesting limit), the
   * only ones those take; none for who may not read the project's jobs.
   */
  async bridgeActions(projectRef: string, actor: Actor, bridges: readonly JobRecord[]): Promise<{ play: Set<number>; retry: Set<number> }> {
    const none = { play: new Set<number>(), retry: new Set<number>() };
    if (!actor) return none;
    const { project } = await this.readable(projectRef, actor);
    const own = bridges.filter((job) => job.type === 'bridge' && job.project_id === project.id);
    if (own.length === 0) return none;
    const manual = own.filter((bridge) => bridge.status === 'manual' && !bridge.retried);
    return this.deps.bridges.rights(project, actor, { retry: own.filter((bridge) => this.deps.bridges.isRetryable(bridge)), play: manual });
  }

  /**
   * The project's builds the caller may play, retry and cancel, by the rule `play`, `retry` and
   * `cancel` apply (GitLab's `update_build`, which gives `play_job` and `cancel_build`): the
   * pipeline page shows their buttons only then. Each ref's protection is read once, the
   * deployments once per pipeline, and the permission module asked once per distinct answer.
   */
  async buildActions(projectRef: string, actor: Actor, builds: readonly JobRecord[]): Promise<{ play: Set<number>; retry: Set<number>; cancel: Set<number> }> {
    if (!actor) return { play: new Set(), retry: new Set(), cancel: new Set() };
    const { project } = await this.readable(projectRef, actor);
    const updatable = await this.updatableBuilds(project, actor, builds.filter((job) => job.type === 'build' && job.project_id === project.id));
    return { play: updatable, retry: updatable, cancel: updatable };
  }

  private async mayUpdate(project: ProjectRecord, actor: Actor, job: JobRecord): Promise<boolean> {
    return (await this.updatableBuilds(project, actor, [job])).has(job.id);
  }

  /** The one `update_build` decision, for one job (the API) or a page of them. */
  private async updatableBuilds(project: ProjectRecord, actor: Actor, builds: readonly JobRecord[]): Promise<Set<number>> {
    const updatable = new Set<number>();
    if (builds.length === 0) return updatable;
    const outdated = await jobsWithOutdatedDeployment(this.deps.deployments, project, builds);
    const refs = new Map<string, Promise<RefAccess>>();
    const answers = new Map<string, Promise<boolean>>();
    for (const job of builds) {
      const refKey = `${job.tag ? 'tag' : 'branch'}:${job.ref}`;
      const ref = refs.get(refKey) ?? this.refAccess(project, actor, job);
      refs.set(refKey, ref);
      const { writable } = await ref;
      const answerKey = `${writable}:${outdated.has(job.id)}`;
      const answer = answers.get(answerKey) ?? this.deps.permissions.canUpdateJob(project, actor, writable, outdated.has(job.id));
      answers.set(answerKey, answer);
      if (await answer) updatable.add(job.id);
    }
    return updatable;
  }

  /** GitLab's `has_outdated_deployment?` (forward-deployments.ts); no read for a job without an environment. */
  private async hasOutdatedDeployment(project: ProjectRecord, job: JobRecord): Promise<boolean> {
    return (await jobsWithOutdatedDeployment(this.deps.deployments, project, [job])).has(job.id);
  }

  /** Runs one state-rule event for the job and answers the job it names (a retry's new job). */
  private async act(projectRef: string, actor: Actor, jobId: number, event: (job: JobRecord) => PipelineEvent): Promise<JobView> {
    const { target, job } = await this.forAction(projectRef, actor, jobId, (project, found) => this.mayUpdate(project, actor, found));
    return this.run(target, job, actor, event(job));
  }

  private async run(target: CiProject, job: JobRecord, actor: Actor, event: PipelineEvent): Promise<JobView> {
    const processed = await this.deps.processing.apply(job.pipeline_id, event, { userId: actor?.id ?? null });
    const shown = (await this.deps.jobs.findById(processed.resultJobId ?? job.id)) ?? job;
    return this.deps.views.one(target, shown);
  }

  private async forAction(
    projectRef: string,
    actor: Actor,
    jobId: number,
    allowed: (project: ProjectRecord, job: JobRecord) => Promise<boolean>,
    kinds: 'build' | 'processable' = 'build',
  ): Promise<{ target: CiProject; job: JobRecord }> {
    const target = await this.readable(projectRef, actor);
    const job = kinds === 'build' ? await this.build(target.project, jobId) : await this.processable(target.project, jobId);
    if (!(await allowed(target.project, job))) throw accessDenied();
    return { target, job };
  }
}
