import type { ReportedJobStatus } from '../../../../pipeline/index.ts';
import { accessDenied, GantryError, validationFailed } from '../../../../shared/errors.ts';
import { isRetryableConflict } from '../../../../storage/errors.ts';
import type { GitRepository, RepositoryManager } from '../../../../storage/git/types.ts';
import type { ProjectRecord, UserRecord, UsersStore } from '../../../../storage/types.ts';
import { StaleJobError, type CiJobsStore, type JobChanges, type JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { PipelineRecord, PipelinesStore } from '../../../../storage/types-ci.ts';
import type { CiStores, CiTransactions } from '../../../../storage/types-ci-transactions.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { Actor, Permissions } from '../../access/permissions.ts';
import type { RefWriteAccess } from '../../repository/ref-write-access.ts';
import { commitStatusFieldErrors, normalizedTargetUrl } from './commit-status-fields.ts';
import type { CiProject, JobViews } from './job-views.ts';
import type { RefRules } from './jobs.ts';
import type { PipelineProcessing, ProcessedEvent } from './processing.ts';

/** The states `POST /statuses/:sha` takes (§9). */
export const COMMIT_STATUS_STATES = ['pending', 'running', 'success', 'failed', 'canceled'] as const satisfies readonly ReportedJobStatus[];
export type CommitStatusState = (typeof COMMIT_STATUS_STATES)[number];

/** External statuses sort after every CI stage (GenericCommitStatus defaults). */
const EXTERNAL_STAGE = 'external';
const EXTERNAL_STAGE_IDX = 1_000_000;
const MAX_ATTEMPTS = 8;

export interface CommitStatusView {
  job: JobRecord;
  author: UserRecord | null;
  target: CiProject;
}

export interface StatusListQuery {
  ref?: string;
  stage?: string;
  name?: string;
  all: boolean;
  /** Only the statuses of this pipeline. */
  pipelineId?: number;
  /** `id` (default) or `pipeline_id`, then the id; `asc` (default) or `desc`. */
  orderBy?: 'id' | 'pipeline_id';
  sort?: 'asc' | 'desc';
}

export interface StatusInput {
  state: CommitStatusState;
  ref?: string;
  /** Default `default`. */
  name: string;
  targetUrl?: string;
  description?: string;
  coverage?: number;
  pipelineId?: number;
}

export interface CommitStatusesServiceDeps {
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'canReadJobs' | 'canCreateCommitStatus' | 'canSetCommitStatus'>;
  jobs: Pick<CiJobsStore, 'statusesForSha' | 'findById'>;
  pipelines: Pick<PipelinesStore, 'findInProject' | 'latestFor'>;
  /** Whether the caller may update the ref of the pipeline a status goes into. */
  refs: Pick<RefWriteAccess, 'writable'>;
  users: Pick<UsersStore, 'findByIds'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  views: Pick<JobViews, 'target'>;
  refRules: { branches: Pick<RefRules['branches'], 'isProtected'>; tags: Pick<RefRules['tags'], 'protectionFor'> };
  transactions: CiTransactions;
  processing: Pick<PipelineProcessing, 'applyIn' | 'notify'>;
  clock?: () => number;
}

/**
 * Commit statuses (§9): every job of a sha's pipelines is one, and external tools add their
 * own (generic jobs) with `POST /statuses/:sha`, which moves them by the job state rules and
 * gives the sha a pipeline of source `external` when it has none.
 */
export class CommitStatusesService {
  private readonly clock: () => number;

  constructor(private readonly deps: CommitStatusesServiceDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** The statuses of every pipeline of the sha, oldest first (paged by the caller's page). */
  async list(projectRef: string, actor: Actor, sha: string, query: StatusListQuery, page: { offset: number; limit: number }): Promise<{ items: CommitStatusView[]; total: number }> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canReadJobs(project, actor))) throw accessDenied();
    // GitLab's `not_found!('Commit') unless user_project.commit(params[:sha])`.
    const repository = await this.repositoryOf(project);
    if (!repository || !(await repository.commit(sha))) throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND');
    const target = await this.deps.views.target(project);
    const ref = query.ref ?? (await this.defaultRefOf(project, sha));
    const { pipelineId, orderBy = 'id', sort = 'asc', ...filter } = query;
    const found = await this.deps.jobs.statusesForSha(project.id, sha, { ...filter, ...(ref === undefined ? {} : { ref }) });
    const all = (pipelineId === undefined ? found : found.filter((job) => job.pipeline_id === pipelineId)).sort(statusOrder(orderBy, sort));
    const items = all.slice(page.offset, page.offset + page.limit);
    return { items: await this.withAuthors(target, items), total: all.length };
  }

  /**
   * Adds a status, or moves the open one of that name and ref; 400 when the state rules forbid
   * the move or a field breaks GitLab's rules, 403 unless the caller may update the ref of the
   * pipeline the status goes into (GitLab's `update_pipeline`: a failed status fails it).
   */
  async create(projectRef: string, actor: UserRecord, sha: string, given: StatusInput): Promise<CommitStatusView> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    const { permissions } = this.deps;
    if (!(await permissions.canCreateCommitStatus(project, actor))) throw accessDenied();
    const fieldErrors = commitStatusFieldErrors(given);
    if (Object.keys(fieldErrors).length > 0) throw validationFailed(fieldErrors);
    const input = given.targetUrl === undefined ? given : { ...given, targetUrl: normalizedTargetUrl(given.targetUrl) };
    const repository = await this.repositoryOf(project);
    const commit = repository ? await repository.commit(sha) : null;
    if (!repository || !commit) throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND');
    const chosen = input.pipelineId === undefined ? undefined : await this.chosenPipeline(project, commit.id, input.pipelineId, input.ref);
    const ref = chosen?.ref ?? (await this.refFor(repository, commit.id, input));
    const tag = chosen?.tag ?? ((await repository.branch(ref)) === null && (await repository.tag(ref)) !== null);
    const into = chosen ?? (await this.deps.pipelines.latestFor(project.id, commit.id, ref));
    const refWritable = await this.deps.refs.writable(project, actor, into ? { name: into.ref, tag: into.tag } : { name: ref, tag });
    if (!(await permissions.canSetCommitStatus(project, actor, refWritable))) throw accessDenied();
    const isProtected = tag ? (await this.deps.refRules.tags.protectionFor(project, ref)) !== null : await this.deps.refRules.branches.isProtected(project, ref);
    const context = { project, actor, sha: commit.id, ref, tag, isProtected };

    const { processed, jobId } = await this.inTransaction((stores) => this.record(stores, context, input));
    this.deps.processing.notify(processed);
    const job = await this.deps.jobs.findById(jobId);
    if (!job) throw new GantryError('GANTRY_E_JOB_NOT_FOUND');
    const [view] = await this.withAuthors(await this.deps.views.target(project), [job]);
    return view!;
  }

  /** The status's pipeline (created when the sha has none), the status row, and its move, in one transaction. */
  private async record(
    stores: CiStores,
    context: { project: ProjectRecord; actor: UserRecord; sha: string; ref: string; tag: boolean; isProtected: boolean },
    input: StatusInput,
  ): Promise<{ processed: ProcessedEvent; jobId: number }> {
    const { project, actor, sha, ref } = context;
    const now = new Date(this.clock()).toISOString();
    const pipeline = await this.pipelineFor(stores, context, input.pipelineId, now);
    const optional: JobChanges = {
      ...(input.targetUrl !== undefined ? { target_url: input.targetUrl } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.coverage !== undefined ? { coverage: input.coverage } : {}),
    };
    let job = await stores.jobs.findOpenGenericStatus(pipeline.id, input.name, ref);
    if (job) {
      if (Object.keys(optional).length > 0) await stores.jobs.update(job.id, { ...optional, updated_at: now });
    } else {
      const stages = await stores.stages.listForPipeline(pipeline.id);
      let stage = stages.find((candidate) => candidate.name === EXTERNAL_STAGE);
      if (!stage) [stage] = await stores.stages.insertMany(pipeline.id, [{ name: EXTERNAL_STAGE, position: EXTERNAL_STAGE_IDX, status: 'created' }]);
      [job] = await stores.jobs.insertMany([
        {
          pipeline_id: pipeline.id, project_id: project.id, stage_id: stage?.id ?? null, stage: EXTERNAL_STAGE, stage_idx: EXTERNAL_STAGE_IDX,
          name: input.name, type: 'generic', status: 'created', when: 'on_success', allow_failure: false, ref, sha, tag: context.tag,
          protected: context.isProtected, user_id: actor.id, created_at: now, target_url: input.targetUrl ?? null,
          description: input.description ?? null, coverage: input.coverage ?? null,
        },
      ]);
    }
    if (!job) throw new GantryError('GANTRY_E_INTERNAL', 'the commit status was not stored');
    const processed = await this.deps.processing.applyIn(stores, pipeline.id, { type: 'job-status', jobId: job.id, status: input.state }, { userId: actor.id });
    return { processed, jobId: job.id };
  }

  /** `pipeline_id` when given (of this project and sha); else the newest pipeline of the sha and ref; else a new external one. */
  private async pipelineFor(
    stores: CiStores,
    context: { project: ProjectRecord; actor: UserRecord; sha: string; ref: string; tag: boolean; isProtected: boolean },
    pipelineId: number | undefined,
    now: string,
  ): Promise<PipelineRecord> {
    const { project, sha, ref } = context;
    if (pipelineId !== undefined) {
      const chosen = await stores.pipelines.findInProject(project.id, pipelineId);
      if (!chosen || chosen.sha !== sha) throw new GantryError('GANTRY_E_PIPELINE_NOT_FOUND');
      return chosen;
    }
    const latest = await stores.pipelines.latestFor(project.id, sha, ref);
    if (latest) return latest;
    return stores.pipelines.create({
      project_id: project.id, ref, sha, tag: context.tag, source: 'external', status: 'created', user_id: context.actor.id, protected: context.isProtected, created_at: now,
    });
  }

  /**
   * Without `ref`, the default branch's statuses, as GitLab's API documentation says; for a
   * commit with no pipeline there (a merge request's or a bot's branch), every ref's, as GitLab's
   * code lists them, rather than an answer that could only ever be empty.
   */
  private async defaultRefOf(project: ProjectRecord, sha: string): Promise<string | undefined> {
    const branch = project.default_branch ?? undefined;
    if (branch === undefined) return undefined;
    return (await this.deps.pipelines.latestFor(project.id, sha, branch)) ? branch : undefined;
  }

  /** `pipeline_id`'s pipeline: of this project and sha, and of `ref` when one is given (GitLab's first_matching_pipeline). */
  private async chosenPipeline(project: ProjectRecord, sha: string, pipelineId: number, ref: string | undefined): Promise<PipelineRecord> {
    const chosen = await this.deps.pipelines.findInProject(project.id, pipelineId);
    if (!chosen || chosen.sha !== sha || (ref !== undefined && chosen.ref !== ref)) throw new GantryError('GANTRY_E_PIPELINE_NOT_FOUND');
    return chosen;
  }

  /** `ref`; else the first branch holding the commit; else 404 "References for commit Not Found". */
  private async refFor(repository: GitRepository, sha: string, input: StatusInput): Promise<string> {
    if (input.ref) return input.ref;
    const refs = await repository.refsContaining(sha);
    const branch = refs.find((ref) => ref.type === 'branch');
    if (!branch) throw new GantryError('GANTRY_E_REF_NOT_FOUND', 'no branch contains the commit', { resource: 'References for commit' });
    return branch.name;
  }

  private async repositoryOf(project: ProjectRecord): Promise<GitRepository | null> {
    return (await this.deps.repositories.exists(project.id)) ? this.deps.repositories.open(project.id) : null;
  }

  private async withAuthors(target: CiProject, jobs: readonly JobRecord[]): Promise<CommitStatusView[]> {
    const ids = [...new Set(jobs.flatMap((job) => (job.user_id === null ? [] : [job.user_id])))];
    const users = new Map((await this.deps.users.findByIds(ids)).map((user) => [user.id, user]));
    return jobs.map((job) => ({ job, target, author: job.user_id === null ? null : (users.get(job.user_id) ?? null) }));
  }

  /** Runs the work again when a job moved meanwhile or the database reports a conflict. */
  private async inTransaction<T>(work: (stores: CiStores) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.deps.transactions.run(work);
      } catch (error) {
        const retry = error instanceof StaleJobError || isRetryableConflict(error);
        if (!retry || attempt >= MAX_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      }
    }
  }
}

/** GitLab's `order_by` of commit statuses (`id` or `pipeline_id`, ties by id) in `sort`'s direction. */
function statusOrder(orderBy: 'id' | 'pipeline_id', sort: 'asc' | 'desc'): (a: JobRecord, b: JobRecord) => number {
  const direction = sort === 'asc' ? 1 : -1;
  return (a, b) => direction * (orderBy === 'pipeline_id' && a.pipeline_id !== b.pipeline_id ? a.pipeline_id - b.pipeline_id : a.id - b.id);
}
