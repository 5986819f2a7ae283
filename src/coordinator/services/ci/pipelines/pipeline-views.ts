import type { GitCommit, RepositoryManager } from '../../../../storage/git/types.ts';
import type { JobArtifactsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { PipelineRecord, PipelinesStore } from '../../../../storage/types-ci.ts';
import type { RunnersStore } from '../../../../storage/types-runners.ts';
import type { NamespacesStore, ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../../storage/types.ts';
import { ciProject, type CiProject, type JobView as ProjectJobView } from './job-views.ts';
import { projectFullPathIn } from '../../namespaces/project-full-path.ts';

/** A pipeline with the user who ran it. */
export interface PipelineView {
  pipeline: PipelineRecord;
  user: UserRecord | null;
}

/** A job of one pipeline with what its GitLab answer embeds: the jobs API's view but for the project, which the caller holds. */
export type JobView = Omit<ProjectJobView, 'target' | 'pipeline'> & { pipeline: PipelineRecord };

/** A bridge job and the pipeline it created (possibly in another project). */
export interface BridgeView extends JobView {
  downstream: { pipeline: PipelineRecord; fullPath: string } | null;
}

export interface PipelineViewsDeps {
  users: Pick<UsersStore, 'findByIds'>;
  namespaces: Pick<NamespacesStore, 'findById' | 'findByIds'>;
  projects: Pick<ProjectsStore, 'findByIds'>;
  pipelines: Pick<PipelinesStore, 'listBySourceJobs'>;
  runners: Pick<RunnersStore, 'findByIds'>;
  artifacts: Pick<JobArtifactsStore, 'listForJobs'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
}

/** Gathers what pipeline and job answers embed, with one read per kind of record for a whole page. */
export class PipelineViews {
  constructor(private readonly deps: PipelineViewsDeps) {}

  project(project: ProjectRecord): Promise<CiProject> {
    return ciProject(this.deps.namespaces, project);
  }

  async pipelines(pipelines: readonly PipelineRecord[]): Promise<PipelineView[]> {
    const users = await this.usersById(pipelines.map((pipeline) => pipeline.user_id));
    return pipelines.map((pipeline) => ({ pipeline, user: userOf(users, pipeline.user_id) }));
  }

  async jobs(target: CiProject, pipeline: PipelineRecord, jobs: readonly JobRecord[]): Promise<JobView[]> {
    const jobIds = jobs.map((job) => job.id);
    const [users, runners, artifacts, commits] = await Promise.all([
      this.usersById(jobs.map((job) => job.user_id)),
      this.deps.runners.findByIds(unique(jobs.map((job) => job.runner_id))),
      this.deps.artifacts.listForJobs(jobIds),
      this.commits(target.project, jobs.map((job) => job.sha)),
    ]);
    const runnerById = new Map(runners.map((runner) => [runner.id, runner]));
    return jobs.map((job) => ({
      job,
      user: userOf(users, job.user_id),
      commit: commits.get(job.sha) ?? null,
      pipeline,
      runner: job.runner_id === null ? null : (runnerById.get(job.runner_id) ?? null),
      // The trace is served by its own route, not listed among a job's artifacts here.
      artifacts: artifacts.filter((artifact) => artifact.job_id === job.id),
    }));
  }

  async bridges(target: CiProject, pipeline: PipelineRecord, bridges: readonly JobRecord[]): Promise<BridgeView[]> {
    const views = await this.jobs(target, pipeline, bridges);
    const downstream = await this.deps.pipelines.listBySourceJobs(bridges.map((bridge) => bridge.id));
    const paths = await this.fullPaths(downstream.map((child) => child.project_id));
    // A bridge that was retried keeps its own downstream pipeline; the newest one wins.
    const bySourceJob = new Map<number, PipelineRecord>();
    for (const child of downstream) if (child.source_job_id !== null) bySourceJob.set(child.source_job_id, child);
    return views.map((view) => {
      const child = bySourceJob.get(view.job.id);
      const fullPath = child ? paths.get(child.project_id) : undefined;
      return { ...view, downstream: child && fullPath !== undefined ? { pipeline: child, fullPath } : null };
    });
  }

  private async usersById(ids: ReadonlyArray<number | null>): Promise<Map<number, UserRecord>> {
    const users = await this.deps.users.findByIds(unique(ids));
    return new Map(users.map((user) => [user.id, user]));
  }

  /** The jobs' commits; a sha the repository does not know (pushed away) is absent from the answer, and shows as no commit. */
  private async commits(project: ProjectRecord, shas: readonly string[]): Promise<Map<string, GitCommit>> {
    const wanted = unique(shas);
    if (wanted.length === 0 || !(await this.deps.repositories.exists(project.id))) return new Map();
    return this.deps.repositories.open(project.id).commits(wanted);
  }

  /** Full paths of projects by id (downstream pipelines may live in other projects). */
  private async fullPaths(projectIds: readonly number[]): Promise<Map<number, string>> {
    const projects = await this.deps.projects.findByIds(unique(projectIds));
    const namespaces = new Map((await this.deps.namespaces.findByIds(unique(projects.map((project) => project.namespace_id)))).map((ns) => [ns.id, ns]));
    return new Map(projects.map((project) => [project.id, projectFullPathIn(namespaces.get(project.namespace_id), project)]));
  }
}

function userOf(users: Map<number, UserRecord>, id: number | null): UserRecord | null {
  return id === null ? null : (users.get(id) ?? null);
}

function unique<T>(values: ReadonlyArray<T | null>): T[] {
  return [...new Set(values.filter((value): value is T => value !== null))];
}
