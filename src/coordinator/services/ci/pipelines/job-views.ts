import type { GitCommit, RepositoryManager } from '../../../../storage/git/types.ts';
import type { NamespacesStore, ProjectRecord, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { JobArtifactRecord, JobArtifactsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { PipelineRecord, PipelinesStore } from '../../../../storage/types-ci.ts';
import type { RunnerRecord, RunnersStore } from '../../../../storage/types-runners.ts';
import { projectFullPath } from '../../namespaces/project-full-path.ts';

/** A project as the CI routes show it: the record and its full path (for web_url). */
export interface CiProject {
  project: ProjectRecord;
  /** `group/sub/project`. */
  fullPath: string;
}

/** The project with its full path (a project whose namespace is gone shows its path alone). */
export async function ciProject(namespaces: Pick<NamespacesStore, 'findById'>, project: ProjectRecord): Promise<CiProject> {
  return { project, fullPath: await projectFullPath(namespaces, project) };
}

/** One job with everything its API answer shows. */
export interface JobView {
  job: JobRecord;
  target: CiProject;
  pipeline: PipelineRecord | null;
  user: UserRecord | null;
  runner: RunnerRecord | null;
  /** The job's artifact files (archive, metadata, trace, reports). */
  artifacts: JobArtifactRecord[];
  /** The job's commit from the repository; null when the repository lacks it. */
  commit: GitCommit | null;
}

export interface JobViewsDeps {
  pipelines: Pick<PipelinesStore, 'findByIds'>;
  users: Pick<UsersStore, 'findByIds'>;
  runners: Pick<RunnersStore, 'findByIds'>;
  jobArtifacts: Pick<JobArtifactsStore, 'listForJobs'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
}

/** Builds job views for a page of jobs with one query per related kind (pipelines, users, runners, artifacts, commits). */
export class JobViews {
  constructor(private readonly deps: JobViewsDeps) {}

  target(project: ProjectRecord): Promise<CiProject> {
    return ciProject(this.deps.namespaces, project);
  }

  async one(target: CiProject, job: JobRecord): Promise<JobView> {
    const [view] = await this.many(target, [job]);
    return view!;
  }

  async many(target: CiProject, jobs: readonly JobRecord[]): Promise<JobView[]> {
    if (jobs.length === 0) return [];
    const { pipelines, users, runners, jobArtifacts } = this.deps;
    const distinct = <T>(values: ReadonlyArray<T | null>): T[] => [...new Set(values.filter((value): value is T => value !== null))];
    const [pipelineRows, userRows, runnerRows, artifactRows, commits] = await Promise.all([
      pipelines.findByIds(distinct(jobs.map((job) => job.pipeline_id))),
      users.findByIds(distinct(jobs.map((job) => job.user_id))),
      runners.findByIds(distinct(jobs.map((job) => job.runner_id))),
      jobArtifacts.listForJobs(jobs.map((job) => job.id)),
      this.commits(target.project.id, distinct(jobs.map((job) => job.sha))),
    ]);
    const byId = <T extends { id: number }>(rows: readonly T[]) => new Map(rows.map((row) => [row.id, row]));
    const pipelineById = byId(pipelineRows);
    const userById = byId(userRows);
    const runnerById = byId(runnerRows);
    return jobs.map((job) => ({
      job,
      target,
      pipeline: pipelineById.get(job.pipeline_id) ?? null,
      user: job.user_id === null ? null : (userById.get(job.user_id) ?? null),
      runner: job.runner_id === null ? null : (runnerById.get(job.runner_id) ?? null),
      artifacts: artifactRows.filter((artifact) => artifact.job_id === job.id),
      commit: commits.get(job.sha) ?? null,
    }));
  }

  private async commits(projectId: number, shas: readonly string[]): Promise<Map<string, GitCommit>> {
    const { repositories } = this.deps;
    const wanted = shas.filter((sha) => /^[0-9a-f]{40}$/.test(sha));
    if (wanted.length === 0 || !(await repositories.exists(projectId))) return new Map();
    return repositories.open(projectId).commits(wanted);
  }
}
