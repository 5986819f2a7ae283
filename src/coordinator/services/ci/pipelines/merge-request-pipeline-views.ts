import { accessDenied } from '../../../../shared/errors.ts';
import type { RepositoryManager } from '../../../../storage/git/types.ts';
import type { PipelineRecord, PipelinesStore } from '../../../../storage/types-ci.ts';
import type { MergeRequestPipelinesStore } from '../../../../storage/types-merge-request-pipelines.ts';
import type { MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import type { ProjectRecord, ProjectsStore } from '../../../../storage/types.ts';
import type { Actor, Permissions } from '../../access/permissions.ts';
import type { VisibleMergeRequests } from '../../planning/merge-requests/visible.ts';
import type { Page, Paged } from '../../repository/pages.ts';
import type { CiProject } from './job-views.ts';
import type { MergeRequestPipelines } from './merge-request-pipelines.ts';
import type { PipelineView, PipelineViews } from './pipeline-views.ts';

/** The request's commits whose source branch pipelines count as its own (GitLab reads them all; bounded here). */
export const MAX_REQUEST_COMMITS = 100;

export interface MergeRequestPipelinesViewDeps {
  visible: Pick<VisibleMergeRequests, 'find'>;
  permissions: Pick<Permissions, 'canReadPipelines'>;
  requestPipelines: Pick<MergeRequestPipelinesStore, 'list'>;
  pipelines: Pick<PipelinesStore, 'findByIds'>;
  projects: Pick<ProjectsStore, 'findByIds'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  views: Pick<PipelineViews, 'pipelines' | 'project'>;
  creator: Pick<MergeRequestPipelines, 'createNow'>;
}

/** A pipeline with the project it ran in (a fork's branch pipelines are listed on the target's request). */
export interface RequestPipeline {
  pipeline: PipelineRecord;
  target: CiProject;
}

/** A request's head pipeline, for the merge request answers' `head_pipeline` (full) and `pipeline` (basic). */
export interface HeadPipeline {
  view: PipelineView;
  target: CiProject;
}

/** `GET|POST /projects/:id/merge_requests/:iid/pipelines` and the head pipeline of merge request answers. */
export class MergeRequestPipelinesView {
  constructor(private readonly deps: MergeRequestPipelinesViewDeps) {}

  /** Newest first; 403 for a reader of the request who may not read pipelines. */
  async list(projectRef: string, actor: Actor, iid: number, page: Page): Promise<Paged<RequestPipeline>> {
    const { project, mergeRequest } = await this.deps.visible.find(projectRef, actor, iid);
    if (!(await this.deps.permissions.canReadPipelines(project, actor))) throw accessDenied();
    const commitShas = await this.commitShas(project, mergeRequest);
    const { items, total } = await this.deps.requestPipelines.list(
      { mergeRequestId: mergeRequest.id, sourceProjectId: mergeRequest.source_project_id, sourceBranch: mergeRequest.source_branch, commitShas },
      page,
    );
    const targets = await this.targets(items.map((pipeline) => pipeline.project_id));
    return { items: items.flatMap((pipeline) => { const target = targets.get(pipeline.project_id); return target ? [{ pipeline, target }] : []; }), total };
  }

  async create(projectRef: string, actor: Actor, iid: number): Promise<HeadPipeline> {
    if (!actor) throw accessDenied();
    const { project, mergeRequest } = await this.deps.visible.find(projectRef, actor, iid);
    const pipeline = await this.deps.creator.createNow(project, mergeRequest, actor);
    const [view] = await this.deps.views.pipelines([pipeline]);
    if (!view) throw new Error(`pipeline ${pipeline.id}: no view`);
    return { view, target: await this.deps.views.project(project) };
  }

  /**
   * The head pipelines of a page of requests, by request id (mr-core's serializer fills
   * `head_pipeline` and `pipeline` from them). The caller checked the requests are readable;
   * pipelines the caller may not read are left out, as GitLab hides them.
   */
  async headPipelines(requests: readonly MergeRequestRecord[], actor: Actor): Promise<Map<number, HeadPipeline>> {
    const pipelineIds = requests.flatMap((request) => (request.head_pipeline_id === null ? [] : [request.head_pipeline_id]));
    if (pipelineIds.length === 0) return new Map();
    const pipelines = await this.deps.pipelines.findByIds(pipelineIds);
    const targets = await this.targets(pipelines.map((pipeline) => pipeline.project_id));
    const readable = new Set<number>();
    for (const target of targets.values()) if (await this.deps.permissions.canReadPipelines(target.project, actor)) readable.add(target.project.id);
    const views = new Map((await this.deps.views.pipelines(pipelines.filter((pipeline) => readable.has(pipeline.project_id)))).map((view) => [view.pipeline.id, view]));
    const heads = new Map<number, HeadPipeline>();
    for (const request of requests) {
      const view = request.head_pipeline_id === null ? undefined : views.get(request.head_pipeline_id);
      const target = view && targets.get(view.pipeline.project_id);
      if (view && target) heads.set(request.id, { view, target });
    }
    return heads;
  }

  /** The request's commits, newest first, from the target repository (it holds the request's head ref). */
  private async commitShas(project: ProjectRecord, request: MergeRequestRecord): Promise<string[]> {
    if (request.head_sha === null || !(await this.deps.repositories.exists(project.id))) return [];
    const excluding = request.base_sha === null ? [] : [request.base_sha];
    const commits = await this.deps.repositories.open(project.id).newCommits(request.head_sha, excluding, MAX_REQUEST_COMMITS);
    return commits.map((commit) => commit.id);
  }

  private async targets(projectIds: readonly number[]): Promise<Map<number, CiProject>> {
    const projects = await this.deps.projects.findByIds([...new Set(projectIds)]);
    const targets = await Promise.all(projects.map((project) => this.deps.views.project(project)));
    return new Map(targets.map((target) => [target.project.id, target]));
  }
}
