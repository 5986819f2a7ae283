import { accessDenied, GantryError } from '../../../../shared/errors.ts';
import { PIPELINE_STATUSES, type PipelineListFilter, type PipelineOrder, type PipelineRecord, type PipelineScope, type PipelineStatus, type JobStatus, type PipelineVariableRecord, type PipelineVariablesStore, type PipelinesStore } from '../../../../storage/types-ci.ts';
import type { CiJobsStore } from '../../../../storage/types-ci-jobs.ts';
import type { DeploymentsStore } from '../../../../storage/types-environments.ts';
import type { RepositoryManager } from '../../../../storage/git/types.ts';
import type { ProjectRecord } from '../../../../storage/types.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { Actor, Permissions } from '../../access/permissions.ts';
import type { ProtectedBranchesService } from '../../repository/protected-branches.ts';
import type { ProtectedTagsService } from '../../repository/protected-tags.ts';
import type { Page, Paged } from '../../repository/pages.ts';
import { unretryableDeploymentJobIds } from './forward-deployments.ts';
import type { PipelineRemoval } from './pipeline-removal.ts';
import type { CiProject } from './job-views.ts';
import type { BridgeView, JobView, PipelineView, PipelineViews } from './pipeline-views.ts';
import type { PipelineProcessing } from './processing.ts';

/** The list filters of `GET /projects/:id/pipelines`, as GitLab names their values. */
export interface PipelineListQuery {
  scope?: PipelineScope;
  /** Any of GitLab's statuses; those Gantry never stores match nothing. */
  status?: string;
  ref?: string;
  sha?: string;
  yamlErrors?: boolean;
  username?: string;
  name?: string;
  source?: string;
  updatedBefore?: string;
  updatedAfter?: string;
  createdBefore?: string;
  createdAfter?: string;
  orderBy: PipelineOrder;
  sort: 'asc' | 'desc';
}

export interface PipelineJobsQuery {
  /** Job statuses (GitLab's whole vocabulary); absent: every status. */
  scope?: readonly string[];
  includeRetried: boolean;
}

export interface PipelinesServiceDeps {
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'canReadPipelines' | 'canReadJobs' | 'canUpdatePipeline' | 'canDeletePipeline' | 'canReadPipelineVariables'>;
  branchRules: Pick<ProtectedBranchesService, 'canPush' | 'canMerge'>;
  tagRules: Pick<ProtectedTagsService, 'canCreate'>;
  pipelines: Pick<PipelinesStore, 'findInProject' | 'list' | 'latestFor'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  pipelineVariables: Pick<PipelineVariablesStore, 'list'>;
  jobs: Pick<CiJobsStore, 'list'>;
  /** A retry leaves the jobs of outdated deployments its caller may not retry (forward deployment). */
  deployments: Pick<DeploymentsStore, 'listForPipeline' | 'lastSuccessful'>;
  processing: Pick<PipelineProcessing, 'apply'>;
  removal: Pick<PipelineRemoval, 'remove'>;
  views: PipelineViews;
}

/** A pipeline answer: the pipeline with its user, and its project for URLs. */
export interface PipelineResult {
  target: CiProject;
  view: PipelineView;
}

const JOB_STATUSES: ReadonlySet<string> = new Set<JobStatus>(PIPELINE_STATUSES);

/** `/projects/:id/pipelines[/:pipeline_id[/...]]`: reading, retrying, canceling and deleting pipelines. */
export class PipelinesService {
  constructor(private readonly deps: PipelinesServiceDeps) {}

  /** GitLab asks for `read_pipeline` and `read_build` on the project to list its pipelines. */
  async list(projectRef: string, actor: Actor, query: PipelineListQuery, page: Page): Promise<{ target: CiProject } & Paged<PipelineRecord>> {
    const project = await this.readable(projectRef, actor);
    const permissions = this.deps.permissions;
    if (!(await permissions.canReadPipelines(project, actor)) || !(await permissions.canReadJobs(project, actor))) throw accessDenied();
    const target = await this.deps.views.project(project);
    if (query.status !== undefined && !isPipelineStatus(query.status)) return { target, items: [], total: 0 };
    const filter: PipelineListFilter = {
      projectId: project.id,
      scope: query.scope,
      status: query.status,
      ref: query.ref,
      sha: query.sha,
      yamlErrors: query.yamlErrors,
      username: query.username,
      userName: query.name,
      source: query.source,
      updatedBefore: query.updatedBefore,
      updatedAfter: query.updatedAfter,
      createdBefore: query.createdBefore,
      createdAfter: query.createdAfter,
      orderBy: query.orderBy,
      sort: query.sort,
    };
    return { target, ...(await this.deps.pipelines.list(filter, page)) };
  }

  async get(projectRef: string, actor: Actor, pipelineId: number): Promise<PipelineResult> {
    const { project, pipeline } = await this.find(projectRef, actor, pipelineId);
    return this.result(project, pipeline);
  }

  /**
   * `GET .../pipelines/latest`: the newest pipeline of the ref's current commit (the default
   * branch without `ref`), as GitLab's Project#latest_pipeline. GitLab authorizes read_pipeline
   * on what it found, so no such pipeline is its 403, not a 404.
   */
  async latest(projectRef: string, actor: Actor, ref: string | undefined): Promise<PipelineResult> {
    const project = await this.readable(projectRef, actor);
    if (!(await this.deps.permissions.canReadPipelines(project, actor))) throw accessDenied();
    const repository = (await this.deps.repositories.exists(project.id)) ? this.deps.repositories.open(project.id) : null;
    const name = ref || (await repository?.defaultBranch()) || null;
    const sha = repository && name ? await repository.resolveCommit(name) : null;
    const pipeline = name && sha ? await this.deps.pipelines.latestFor(project.id, sha, name) : undefined;
    if (!pipeline) throw accessDenied();
    return this.result(project, pipeline);
  }

  /** Retries the failed and canceled jobs (201 with the pipeline). */
  async retry(projectRef: string, actor: Actor, pipelineId: number): Promise<PipelineResult> {
    const { project, pipeline } = await this.findForUpdate(projectRef, actor, pipelineId);
    const settings = { enabled: project.ci_forward_deployment_enabled, rollbackAllowed: project.ci_forward_deployment_rollback_allowed };
    const keepJobIds = await unretryableDeploymentJobIds(this.deps.deployments, settings, pipeline.id);
    const processed = await this.deps.processing.apply(pipeline.id, { type: 'retry-pipeline', keepJobIds }, { userId: actor?.id ?? null });
    return this.result(project, processed.pipeline);
  }

  /** Cancels the jobs that may still run (200 with the pipeline, cancelable or not). */
  async cancel(projectRef: string, actor: Actor, pipelineId: number): Promise<PipelineResult> {
    const { project, pipeline } = await this.findForUpdate(projectRef, actor, pipelineId);
    const processed = await this.deps.processing.apply(pipeline.id, { type: 'cancel-pipeline' }, { userId: actor?.id ?? null });
    return this.result(project, processed.pipeline);
  }

  /** Whether the actor may retry and cancel the pipeline (the pages show their buttons only then). */
  async canUpdate(projectRef: string, actor: Actor, pipelineId: number): Promise<boolean> {
    try {
      await this.findForUpdate(projectRef, actor, pipelineId);
      return true;
    } catch (error) {
      if (error instanceof GantryError) return false;
      throw error;
    }
  }

  /** Deletes the pipeline with its stages, jobs, variables, traces and artifacts (Owners). */
  async remove(projectRef: string, actor: Actor, pipelineId: number): Promise<void> {
    const { project, pipeline } = await this.find(projectRef, actor, pipelineId);
    if (!(await this.deps.permissions.canDeletePipeline(project, actor))) throw accessDenied();
    if (!(await this.deps.removal.remove(pipeline.id))) throw pipelineNotFound();
  }

  /** The pipeline's builds; empty for callers who may read the pipeline but not its jobs (GitLab's JobsFinder). */
  async jobs(projectRef: string, actor: Actor, pipelineId: number, query: PipelineJobsQuery, page: Page): Promise<{ target: CiProject } & Paged<JobView>> {
    // GitLab checks read_pipeline on the project before it looks the pipeline up here.
    const project = await this.readable(projectRef, actor);
    if (!(await this.deps.permissions.canReadPipelines(project, actor))) throw accessDenied();
    const pipeline = await this.pipelineOf(project, pipelineId);
    const target = await this.deps.views.project(project);
    if (!(await this.deps.permissions.canReadJobs(project, actor))) return { target, items: [], total: 0 };
    const statuses = query.scope?.filter((status): status is JobStatus => JOB_STATUSES.has(status));
    const { items, total } = await this.deps.jobs.list(
      { pipelineId: pipeline.id, types: ['build'], statuses, includeRetried: query.includeRetried, sort: 'desc' },
      page,
    );
    return { target, items: await this.deps.views.jobs(target, pipeline, items), total };
  }

  /** The pipeline's bridge jobs with the pipelines they created; `read_build` on the project (403 otherwise). */
  async bridges(projectRef: string, actor: Actor, pipelineId: number, query: { scope?: readonly string[] }, page: Page): Promise<{ target: CiProject } & Paged<BridgeView>> {
    const project = await this.readable(projectRef, actor);
    if (!(await this.deps.permissions.canReadJobs(project, actor))) throw accessDenied();
    const pipeline = await this.pipelineOf(project, pipelineId);
    const target = await this.deps.views.project(project);
    const statuses = query.scope?.filter((status): status is JobStatus => JOB_STATUSES.has(status));
    const { items, total } = await this.deps.jobs.list({ pipelineId: pipeline.id, types: ['bridge'], statuses, sort: 'desc' }, page);
    return { target, items: await this.deps.views.bridges(target, pipeline, items), total };
  }

  /** Variables given to the pipeline (API run, trigger, schedule): Maintainers, or the Developer who ran it. */
  async variables(projectRef: string, actor: Actor, pipelineId: number): Promise<PipelineVariableRecord[]> {
    const { project, pipeline } = await this.find(projectRef, actor, pipelineId);
    if (!(await this.deps.permissions.canReadPipelineVariables(project, actor, pipeline))) throw accessDenied();
    return this.deps.pipelineVariables.list(pipeline.id);
  }

  private async readable(projectRef: string, actor: Actor): Promise<ProjectRecord> {
    return this.deps.lookup.readableProject(projectRef, actor);
  }

  /** A pipeline of a project the caller may read pipelines of: 404 when either is missing, 403 without read_pipeline. */
  private async find(projectRef: string, actor: Actor, pipelineId: number): Promise<{ project: ProjectRecord; pipeline: PipelineRecord }> {
    const project = await this.readable(projectRef, actor);
    const pipeline = await this.pipelineOf(project, pipelineId);
    if (!(await this.deps.permissions.canReadPipelines(project, actor))) throw accessDenied();
    return { project, pipeline };
  }

  private async pipelineOf(project: ProjectRecord, pipelineId: number): Promise<PipelineRecord> {
    const pipeline = await this.deps.pipelines.findInProject(project.id, pipelineId);
    if (!pipeline) throw pipelineNotFound();
    return pipeline;
  }

  /** `update_pipeline`: Developer and may update the ref (protected branches: push or merge; protected tags: create). */
  private async findForUpdate(projectRef: string, actor: Actor, pipelineId: number): Promise<{ project: ProjectRecord; pipeline: PipelineRecord }> {
    const found = await this.find(projectRef, actor, pipelineId);
    const { project, pipeline } = found;
    const refWritable = pipeline.tag
      ? await this.deps.tagRules.canCreate(project, actor, pipeline.ref)
      : (await this.deps.branchRules.canPush(project, actor, pipeline.ref)) || (await this.deps.branchRules.canMerge(project, actor, pipeline.ref));
    if (!(await this.deps.permissions.canUpdatePipeline(project, actor, refWritable))) throw accessDenied();
    return found;
  }

  private async result(project: ProjectRecord, pipeline: PipelineRecord): Promise<PipelineResult> {
    const [view] = await this.deps.views.pipelines([pipeline]);
    return { target: await this.deps.views.project(project), view };
  }
}

function isPipelineStatus(value: string): value is PipelineStatus {
  return (PIPELINE_STATUSES as readonly string[]).includes(value);
}

function pipelineNotFound(): GantryError {
  return new GantryError('GANTRY_E_PIPELINE_NOT_FOUND');
}
