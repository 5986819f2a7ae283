import type { BuildJobDefinition, MergeRequestInfo } from '../../../../ci/model.ts';
import { effectiveJobTimeout } from '../../../../ci/job-timeout.ts';
import { sortAndExpandForRunner } from '../../../../ci/runner-variables.ts';
import { toJobPayload } from '../../../../ci/to-payload.ts';
import type { Dependency, JobPayload } from '../../../../protocol/job-payload.ts';
import { serverIdentity } from '../server-identity.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { IdTokens } from '../id-tokens.ts';
import { pipelineRef } from '../../../../storage/git/pipeline-refs.ts';
import type { RepositoryManager } from '../../../../storage/git/types.ts';
import type { JobArtifactsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { PipelineRecord, PipelinesStore, PipelineVariablesStore } from '../../../../storage/types-ci.ts';
import type { RunnerRecord } from '../../../../storage/types-runners.ts';
import type { EnvironmentsStore } from '../../../../storage/types-environments.ts';
import type { ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { OpenMergeRequests } from '../pipelines/open-merge-requests.ts';
import { accessLevelName } from '../../access/levels.ts';
import type { Permissions } from '../../access/permissions.ts';
import { availableArchive } from '../pipelines/artifact-rules.ts';
import { dotenvVariablesOf } from '../pipelines/job-dependencies.ts';
import { pipelineContextVariables, type PipelineVariableSources } from '../pipelines/variables.ts';
import { projectFullPathIn } from '../../namespaces/project-full-path.ts';

export interface JobPayloadsDeps extends PipelineVariableSources {
  projects: Pick<ProjectsStore, 'findById'>;
  pipelines: Pick<PipelinesStore, 'findById'>;
  pipelineVariables: Pick<PipelineVariablesStore, 'list'>;
  users: Pick<UsersStore, 'findById'>;
  jobArtifacts: Pick<JobArtifactsStore, 'listForJobs' | 'dotenvVariablesForJobs'>;
  /** The job's environment, whose URL is CI_ENVIRONMENT_URL when the job names none; absent: none. */
  environments?: Pick<EnvironmentsStore, 'findByName'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  /** Base URL runners reach the coordinator at (clone URLs, CI_SERVER_URL). */
  externalUrl: string;
  /** A merge request pipeline's request (its CI_MERGE_REQUEST_* variables, its ref fetched); absent: none. */
  mergeRequestInfo?: (pipeline: PipelineRecord) => Promise<MergeRequestInfo | undefined>;
  /** CI_OPEN_MERGE_REQUESTS, read again for each job as GitLab does; absent: unset. */
  openMergeRequests?: Pick<OpenMergeRequests, 'referencesFor'>;
  /** Makes the variables of a job's `id_tokens`. */
  idTokens: IdTokens;
  /** The user's level in the project, for the ID tokens' `user_access_level`; absent: null there. */
  permissions?: Pick<Permissions, 'projectAccess'>;
  /** Where a job's tokens that could not be made are reported (the job runs without them). */
  logger?: Pick<Logger, 'warn'>;
}

export interface ClaimedJob {
  job: JobRecord;
  definition: BuildJobDefinition;
  /** The job token the runner receives (only its digest is stored). */
  token: string;
  /** The jobs whose artifacts it downloads. */
  dependencies: readonly JobRecord[];
}

/**
 * The 201 body of `POST /jobs/request` (reference §3.4) for a job just claimed: the project,
 * pipeline, user and variables it needs read once each, then `toJobPayload`.
 */
export class JobPayloads {
  constructor(private readonly deps: JobPayloadsDeps) {}

  async build(claimed: ClaimedJob, runner: Pick<RunnerRecord, 'id' | 'description' | 'tag_list' | 'maximum_timeout'>): Promise<JobPayload> {
    const { job, definition, token } = claimed;
    const [project, pipeline] = await Promise.all([this.deps.projects.findById(job.project_id), this.deps.pipelines.findById(job.pipeline_id)]);
    if (!project || !pipeline) throw new Error(`job ${job.id}: its project or pipeline is gone`);
    const namespace = await this.deps.namespaces.findById(project.namespace_id);
    const projectPath = projectFullPathIn(namespace, project);
    const reading = {
      user: pipeline.user_id === null ? Promise.resolve(undefined) : this.deps.users.findById(pipeline.user_id),
      mergeRequest: this.deps.mergeRequestInfo ? this.deps.mergeRequestInfo(pipeline) : Promise.resolve(undefined),
    };
    const [variables, dotenv, user, commit, dependencies, mergeRequest, openMergeRequests, environment] = await Promise.all([
      this.variables(project, pipeline),
      // The jobs whose artifacts it takes: its `dependencies`, or its `needs` with `artifacts: true`.
      dotenvVariablesOf(this.deps.jobArtifacts, claimed.dependencies),
      reading.user,
      this.commitWithRef(project.id, pipeline),
      this.dependencies(claimed.dependencies, token),
      reading.mergeRequest,
      this.openMergeRequests(project, pipeline, reading),
      job.environment === null ? undefined : this.deps.environments?.findByName(project.id, job.environment),
    ]);
    const timeout = effectiveJobTimeout(definition.timeout, runner.maximum_timeout);
    const payload = toJobPayload(
      { ...definition, timeout },
      { jobId: job.id, pipelineId: pipeline.id, pipelineIid: pipeline.iid, projectId: project.id },
      { jobToken: token, dependencies },
      {
        repoUrl: cloneUrl(this.deps.externalUrl, projectPath, token),
        projectPath,
        ref: pipeline.ref,
        refType: pipeline.tag ? 'tag' : 'branch',
        sha: pipeline.sha,
        beforeSha: pipeline.before_sha,
        refProtected: job.protected,
        commitMessage: commit?.message,
        // GitLab's `timestamp`: ISO 8601 in whole seconds (2022-01-31T16:47:55Z).
        commitTimestamp: commit?.committer.date.replace(/\.\d+(?=Z$)/, ''),
        commitAuthor: commit ? `${commit.author.name} <${commit.author.email}>` : undefined,
      },
      serverIdentity(this.deps.externalUrl),
      {
        source: pipeline.source,
        name: pipeline.name ?? undefined,
        projectTitle: project.name,
        projectVisibility: project.visibility,
        defaultBranch: project.default_branch ?? undefined,
        configPath: pipeline.config_path ?? undefined,
        createdAt: pipeline.created_at,
        jobStartedAt: job.started_at ?? undefined,
        user: user && { id: user.id, email: user.email, login: user.username, name: user.name },
        variables: [...dotenv, ...variables],
        environmentName: job.environment,
        environmentUrl: environment?.external_url ?? undefined,
        environmentTier: environment?.tier,
        mergeRequest,
        openMergeRequests,
        runner: { id: runner.id, description: runner.description, tags: runner.tag_list },
      },
    );
    if (definition.idTokens) {
      const fork = mergeRequest && mergeRequest.sourceProjectId !== project.id ? await this.deps.projects.findById(mergeRequest.sourceProjectId) : undefined;
      const accessLevel = user ? await this.accessLevelName(fork ?? project, user) : null;
      const tokens = await this.deps.idTokens.variables({
        idTokens: definition.idTokens,
        externalUrl: this.deps.externalUrl,
        job: { id: job.id, protected: job.protected, environment: job.environment, environmentDefinition: definition.environment, environmentTier: environment?.tier },
        project: { id: project.id, path: projectPath, visibility: project.visibility },
        namespace: { id: project.namespace_id, path: namespace?.full_path ?? '' },
        ...(fork && mergeRequest ? { source: sourceOf(fork, mergeRequest.sourceProjectPath) } : {}),
        pipeline: { id: pipeline.id, source: pipeline.source, ref: mergeRequest?.sourceBranch ?? pipeline.ref, tag: pipeline.tag, sha: pipeline.sha, configPath: pipeline.config_path },
        user: user ? { id: user.id, login: user.username, email: user.email, accessLevel } : undefined,
        runnerId: runner.id,
        timeoutSeconds: payload.runner_info.timeout,
        variables: payload.variables,
      }).catch((error: unknown) => {
        // GitLab's `id_tokens_variables`: a key that cannot sign is reported, and the job runs without its tokens.
        this.deps.logger?.warn({ err: error, job: job.id }, 'could not make the id_tokens of the job');
        return [];
      });
      // Before the configured variables, as GitLab: a variable of the same name set in the CI file or the settings wins.
      payload.variables.unshift(...tokens);
    }
    return { ...payload, variables: sortAndExpandForRunner(payload.variables) };
  }

  /** GitLab's `project.team.human_max_access(user)`: from memberships only, so an administrator who is no member has none. */
  private async accessLevelName(project: ProjectRecord, user: UserRecord): Promise<string | null> {
    if (!this.deps.permissions) return null;
    return accessLevelName((await this.deps.permissions.projectAccess(project, user)).membership);
  }

  /** From the pipeline's ref, or its merge request's source branch and project; as its user may read them. */
  private async openMergeRequests(project: ProjectRecord, pipeline: PipelineRecord, reading: { user: Promise<UserRecord | undefined>; mergeRequest: Promise<MergeRequestInfo | undefined> }): Promise<string[]> {
    if (!this.deps.openMergeRequests) return [];
    const [user, mergeRequest] = await Promise.all([reading.user, reading.mergeRequest]);
    const source = mergeRequest ? { projectId: mergeRequest.sourceProjectId, branch: mergeRequest.sourceBranch } : { projectId: project.id, branch: pipeline.ref };
    return this.deps.openMergeRequests.referencesFor(source, user ?? null);
  }

  /** Read when the job is handed out (the payload keeps those of the job's ref and environment). */
  private variables(project: ProjectRecord, pipeline: PipelineRecord) {
    return this.deps.pipelineVariables.list(pipeline.id).then((given) => pipelineContextVariables(this.deps, project, given, givenSource(pipeline.source)));
  }

  /**
   * The pipeline's commit, and its persistent ref made sure of (GitLab's `ensure_persistent_ref`
   * when a job starts): both reads go down the repository's one cat-file process together, and
   * only a missing ref (a retried job of a finished pipeline) costs a git process.
   */
  private async commitWithRef(projectId: number, pipeline: PipelineRecord) {
    if (!(await this.deps.repositories.exists(projectId))) return null;
    const repository = this.deps.repositories.open(projectId);
    const [commit, refTip] = await Promise.all([repository.commit(pipeline.sha), repository.resolveCommit(pipelineRef(pipeline.id))]);
    if (commit && refTip !== commit.id) await repository.setPipelineRef(pipeline.id, commit.id);
    return commit;
  }

  /**
   * Each dependency with the running job's own token: only token digests are stored, so a
   * dependency's token cannot be given out again (later GitLab versions do the same), and the
   * artifacts download accepts the token of a job that depends on the artifacts' job.
   */
  private async dependencies(jobs: readonly JobRecord[], token: string): Promise<Dependency[]> {
    if (jobs.length === 0) return [];
    const archives = new Map(
      (await this.deps.jobArtifacts.listForJobs(jobs.map((job) => job.id))).filter((artifact) => artifact.file_type === 'archive').map((artifact) => [artifact.job_id, artifact]),
    );
    const now = new Date().toISOString();
    return jobs.map((job) => {
      const archive = availableArchive(job, archives.get(job.id), now);
      return { id: job.id, name: job.name, token, ...(archive ? { artifacts_file: { filename: archive.file_name, size: archive.size } } : {}) };
    });
  }
}

/** GitLab: the job's timeout (or the project's), never above the runner's maximum_timeout. */
/** `https://gitlab-ci-token:<token>@host[:port][/prefix]/group/project.git` */
export function cloneUrl(externalUrl: string, projectPath: string, token: string): string {
  const url = new URL(`${externalUrl.replace(/\/+$/, '')}/${projectPath}.git`);
  url.username = 'gitlab-ci-token';
  url.password = token;
  return url.toString();
}

function givenSource(source: string): 'trigger' | 'schedule' | 'pipeline' {
  return source === 'trigger' || source === 'schedule' ? source : 'pipeline';
}

/** A fork's claims (a merge request pipeline's source project): its full path is the request's, its namespace that path's parent. */
function sourceOf(fork: ProjectRecord, fullPath: string): { project: { id: number; path: string }; namespace: { id: number; path: string } } {
  return { project: { id: fork.id, path: fullPath }, namespace: { id: fork.namespace_id, path: fullPath.slice(0, Math.max(0, fullPath.lastIndexOf('/'))) } };
}
