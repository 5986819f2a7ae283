import { compilePipeline, type PipelineCompiler } from '../../../../ci/compile.ts';
import type { CompileLimits } from '../../../../ci/limits.ts';
import type { CompileContext, CompileResult, MergeRequestInfo, RepositoryReader, ServerIdentity, VariableSource } from '../../../../ci/model.ts';
import { inputsFromContext, predefinedPipelineVariables, ZERO_SHA } from '../../../../ci/pipeline-variables.ts';
import { GantryError } from '../../../../shared/errors.ts';
import type { GitCommit, GitRepository, RepositoryManager } from '../../../../storage/git/types.ts';
import type { NewPipeline, PipelineRecord, PipelineVariableRecord } from '../../../../storage/types-ci.ts';
import type { CiStores, CiTransactions } from '../../../../storage/types-ci-transactions.ts';
import type { ProjectRecord, UserRecord } from '../../../../storage/types.ts';
import type { Permissions } from '../../access/permissions.ts';
import type { ProtectedBranchesService } from '../../repository/protected-branches.ts';
import type { ProtectedTagsService } from '../../repository/protected-tags.ts';
import type { PipelineProcessing } from './processing.ts';
import type { RedundantPipelines } from './redundant-pipelines.ts';
import type { RemoteIncludes } from './remote-includes.ts';
import { GitRepositoryReader, readTextAt, type CompareRefs, type GitReaderDeps } from './git-reader.ts';
import type { ParentArtifacts } from './parent-artifacts.ts';
import { failRefusedEnvironments, recordDeployments } from './deployments.ts';
import { environmentExpansionVariables, jobRecords } from './job-records.ts';
import { ensureResourceGroups } from './resource-groups.ts';
import { pipelineContextVariables, type PipelineVariableSources } from './variables.ts';
import type { OpenMergeRequests } from './open-merge-requests.ts';
import { projectFullPath } from '../../namespaces/project-full-path.ts';

export const DEFAULT_CI_CONFIG_PATH = '.gitlab-ci.yml';

/** Where a pipeline comes from (`source`). */
export type PipelineSource = 'push' | 'web' | 'api' | 'trigger' | 'schedule' | 'pipeline' | 'parent_pipeline' | 'external' | 'merge_request_event';

export interface PipelineCreationInput {
  project: ProjectRecord;
  /** Branch or tag name; `refs/heads/…` and `refs/tags/…` say which. A bare name is a branch first, then a tag. */
  ref: string;
  /** The commit to build (a push's new tip); default: the ref's tip. */
  sha?: string;
  source: PipelineSource;
  /** Whose pipeline it is (pusher, API caller, trigger or schedule owner); null runs with no user's rights. */
  user: UserRecord | null;
  /** Variables the run was given (API, trigger, schedule): stored with the pipeline. */
  variables?: readonly PipelineVariableRecord[];
  beforeSha?: string;
  /** Paths the push changed; null or absent: unknown (`changes` always matches). */
  changedPaths?: string[] | null;
  triggerId?: number;
  scheduleId?: number;
  /** A downstream pipeline's upstream pipeline and bridge job (`parent_pipeline_id`, `source_job_id`). */
  parent?: { pipelineId: number; jobId: number };
  /** The configuration itself instead of the CI file at the ref (a child pipeline's `trigger:include` document). */
  configContent?: string;
  /**
   * GitLab's `save_on_errors`: a configuration error saves a failed pipeline with its
   * `yaml_errors` and `[ci skip]` a skipped one (pushes, triggers, schedules); without it
   * they are refused and nothing is saved (API runs).
   */
  saveOnErrors: boolean;
  ignoreSkipCi?: boolean;
  /** GitLab's `ci.skip` push option (a rebase with `skip_ci`): saved `skipped` like `[ci skip]`. */
  skipCi?: boolean;
  /**
   * Runs inside the creating transaction with the saved pipeline (a task completes itself
   * there: a rerun does not create twice; a bridge takes its status there).
   */
  inTransaction?: (stores: CiStores, pipeline: PipelineRecord) => Promise<void>;
  /**
   * A merge request pipeline (source `merge_request_event`): `ref` is ignored, the pipeline's ref
   * is the request's ref path in this (the target) project's repository, never protected.
   */
  mergeRequest?: MergeRequestInfo;
  /** Inputs for the main file's `spec:inputs` header (the pipelines and trigger APIs, a bridge's `trigger:inputs`). */
  inputs?: Readonly<Record<string, unknown>>;
  /** `inputs` are command-line text (`runner exec --input`), each read as the type the header declares. */
  inputsAreText?: boolean;
  /** Where `rules:changes:compare_to` resolves its ref (`runner exec`: the user's repository); default the project's. */
  compareRefs?: CompareRefs;
}

export interface PipelineCreationDeps extends GitReaderDeps, PipelineVariableSources {
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  permissions: Pick<Permissions, 'canReadRepository' | 'canCreatePipeline'>;
  branchRules: Pick<ProtectedBranchesService, 'isProtected' | 'canPush' | 'canMerge'>;
  tagRules: Pick<ProtectedTagsService, 'protectionFor' | 'canCreate'>;
  transactions: CiTransactions;
  processing: Pick<PipelineProcessing, 'applyIn' | 'notify'>;
  limits?: Partial<CompileLimits>;
  /** Runs the compiler (the coordinator's sandbox: a deadline and a heap ceiling); default in this thread. */
  compile?: PipelineCompiler;
  /** Files of the parent pipeline's artifacts, for a child pipeline's `include:artifact`. */
  parentArtifacts?: Pick<ParentArtifacts, 'read'>;
  /** Epoch milliseconds. */
  clock?: () => number;
  /** `CI_SERVER_*` and `CI_PROJECT_URL` for rules and includes; without it they are unset there. */
  server?: ServerIdentity;
  /** Auto-cancel of the older pipelines a new one makes redundant (redundant-pipelines.ts). */
  redundant?: Pick<RedundantPipelines, 'afterCreated'>;
  /** Fetches `include:remote` files; without it they are refused. */
  remoteIncludes?: Pick<RemoteIncludes, 'forCompile'>;
  /** CI_OPEN_MERGE_REQUESTS of a new pipeline (open-merge-requests.ts); without it, unset. */
  openMergeRequests?: Pick<OpenMergeRequests, 'referencesFor'>;
}

/** The resolved target of a run: which ref, of which kind, at which commit. */
export interface ResolvedRef {
  ref: string;
  refType: 'branch' | 'tag';
  sha: string;
  commit: GitCommit;
  protected: boolean;
  repository: GitRepository;
}

const VARIABLE_SOURCE: Partial<Record<PipelineSource, Extract<VariableSource, 'trigger' | 'pipeline' | 'schedule'>>> = { trigger: 'trigger', schedule: 'schedule' };

/**
 * The one way a pipeline comes to be, whatever its source (reference §2.1): ref and
 * permission checks, the CI file at the commit, the variables, the compiler, then the
 * pipeline with its stages, jobs and variables inserted and processed in one transaction.
 */
/** What creation checked and compiled for an input, before saving anything. */
export interface PreparedPipeline {
  target: ResolvedRef;
  context: CompileContext;
  result: CompileResult;
}

export class PipelineCreation {
  private readonly clock: () => number;
  /** The compiler lint uses too, so that a lint and a pipeline see the same limits. */
  readonly compile: PipelineCompiler;

  constructor(private readonly deps: PipelineCreationDeps) {
    this.clock = deps.clock ?? Date.now;
    this.compile = deps.compile ?? compilePipeline;
  }

  async create(input: PipelineCreationInput): Promise<PipelineRecord> {
    const { target, context, result } = await this.prepare(input);
    return this.save(input, target, context, result);
  }

  /**
   * Saves what `prepare` answered for this same input, without compiling it again (`runner
   * exec` prepares first to choose jobs, and creates from it when it keeps them all).
   */
  async createPrepared(input: PipelineCreationInput, prepared: PreparedPipeline): Promise<PipelineRecord> {
    return this.save(input, prepared.target, prepared.context, prepared.result);
  }

  /** Everything creation checks and compiles, saving nothing (lint's dry run). */
  async prepare(input: PipelineCreationInput): Promise<PreparedPipeline> {
    const { project, user } = input;
    if (!project.jobs_enabled) throw new GantryError('GANTRY_E_PIPELINES_DISABLED', 'Pipeline is disabled');
    if (user && !(await this.deps.permissions.canCreatePipeline(project, user))) throw refused('Insufficient permissions to create a new pipeline');
    const target = input.mergeRequest ? await this.resolveMergeRequest(project, input.mergeRequest, input.sha) : await this.resolve(project, input.ref, input.sha);
    if (!(await this.mayRunOn(project, user, target))) throw refused(`Insufficient permissions for protected ref '${target.ref}'`);

    const configPath = project.ci_config_path || DEFAULT_CI_CONFIG_PATH;
    const text = input.configContent ?? (await readTextAt(target.repository, target.sha, configPath));
    if (text === null) throw new GantryError('GANTRY_E_CI_CONFIG_MISSING', `Missing ${configPath} file`, { fields: { base: [`Missing ${configPath} file`] } });
    const context = await this.compileContext(input, target, configPath);
    return { target, context, result: await this.compile(text, context) };
  }

  /** The ref (branch first, then tag) and its commit; GitLab's "Reference not found" / "Commit not found". */
  async resolve(project: ProjectRecord, ref: string, sha?: string): Promise<ResolvedRef> {
    const repository = (await this.deps.repositories.exists(project.id)) ? this.deps.repositories.open(project.id) : null;
    const { name, kind } = refName(ref);
    if (!repository || name === '') throw refNotFound();
    let refType: 'branch' | 'tag' | null = null;
    let tip: string | null = null;
    if (kind !== 'tag') {
      const branch = await repository.branch(name);
      if (branch) [refType, tip] = ['branch', branch.commit.id];
    }
    if (refType === null && kind !== 'branch') {
      const tag = await repository.tag(name);
      if (tag) [refType, tip] = ['tag', tag.commit.id];
    }
    if (refType === null || tip === null) throw refNotFound();
    const commit = await repository.commit(sha ?? tip);
    if (!commit) throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND', 'Commit not found', { fields: { base: ['Commit not found'] } });
    const isProtected = refType === 'branch' ? await this.deps.branchRules.isProtected(project, name) : (await this.deps.tagRules.protectionFor(project, name)) !== null;
    return { ref: name, refType, sha: commit.id, commit, protected: isProtected, repository };
  }

  /**
   * GitLab's `protected_for?` is false for refs/merge-requests/…: a merge request pipeline never
   * sees protected variables (a fork's code must not read them).
   */
  private async resolveMergeRequest(project: ProjectRecord, request: MergeRequestInfo, sha?: string): Promise<ResolvedRef> {
    const repository = (await this.deps.repositories.exists(project.id)) ? this.deps.repositories.open(project.id) : null;
    if (!repository) throw refNotFound();
    const commit = await repository.commit(sha ?? request.refPath);
    if (!commit) throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND', 'Commit not found', { fields: { base: ['Commit not found'] } });
    return { ref: request.refPath, refType: 'branch', sha: commit.id, commit, protected: false, repository };
  }

  /** Protected refs: only who may push or merge to the branch, or create the tag (no user: unprotected refs only). */
  private async mayRunOn(project: ProjectRecord, user: UserRecord | null, target: ResolvedRef): Promise<boolean> {
    if (!target.protected) return true;
    if (!user) return false;
    if (target.refType === 'tag') return this.deps.tagRules.canCreate(project, user, target.ref);
    return (await this.deps.branchRules.canPush(project, user, target.ref)) || this.deps.branchRules.canMerge(project, user, target.ref);
  }

  /** The project's full path (`group/sub/project`), as `CI_PROJECT_PATH` names it. */
  fullPath(project: ProjectRecord): Promise<string> {
    return projectFullPath(this.deps.namespaces, project);
  }

  private async compileContext(input: PipelineCreationInput, target: ResolvedRef, configPath: string): Promise<CompileContext> {
    const { project } = input;
    const given = input.variables ?? [];
    const source = input.mergeRequest ? { projectId: input.mergeRequest.sourceProjectId, branch: input.mergeRequest.sourceBranch } : { projectId: project.id, branch: target.ref };
    const openMergeRequests = (await this.deps.openMergeRequests?.referencesFor(source, input.user)) ?? [];
    return {
      project: {
        id: project.id,
        path: await this.fullPath(project),
        defaultBranch: project.default_branch ?? undefined,
        visibility: project.visibility,
        title: project.name,
      },
      ref: input.mergeRequest?.sourceBranch ?? target.ref,
      refType: target.refType,
      refProtected: target.protected,
      mergeRequest: input.mergeRequest,
      openMergeRequests,
      sha: target.sha,
      beforeSha: input.beforeSha ?? ZERO_SHA,
      commitMessage: target.commit.message,
      source: input.source,
      variables: await pipelineContextVariables(this.deps, project, given, VARIABLE_SOURCE[input.source] ?? 'pipeline'),
      changedPaths: input.changedPaths ?? null,
      files: this.filesFor(input, new GitRepositoryReader(this.deps, target.repository, target.sha, input.user, input.compareRefs)),
      configPath,
      ignoreSkipCi: input.ignoreSkipCi ?? false,
      ...(input.skipCi === true ? { skipCi: true } : {}),
      limits: this.deps.limits,
      ...(input.inputs ? { inputs: input.inputs, ...(input.inputsAreText ? { inputsAreText: true } : {}) } : {}),
      ...(this.deps.server ? { server: this.deps.server } : {}),
    };
  }

  /**
   * What the compiler reads: the commit's files through git, remote files (`include:remote`) when
   * the coordinator fetches them, and for a child pipeline its parent's artifacts (`include:artifact`).
   */
  private filesFor(input: PipelineCreationInput, files: GitRepositoryReader): RepositoryReader {
    const parent = input.parent;
    const artifacts = this.deps.parentArtifacts;
    const remote = this.deps.remoteIncludes?.forCompile();
    return {
      readFile: (path) => files.readFile(path),
      listFiles: () => files.listFiles(),
      readProjectFile: (projectPath, ref, path) => files.readProjectFile(projectPath, ref, path),
      lastCommitFor: (paths) => files.lastCommitFor(paths),
      changedPathsSince: (ref, limit) => files.changedPathsSince(ref, limit),
      ...(remote ? { readRemoteFile: remote } : {}),
      ...(input.source === 'parent_pipeline' && parent && artifacts ? { readArtifactFile: (job: string, path: string) => artifacts.read(parent.pipelineId, job, path) } : {}),
    };
  }

  private async save(input: PipelineCreationInput, target: ResolvedRef, context: CompileContext, result: CompileResult): Promise<PipelineRecord> {
    const now = new Date(this.clock()).toISOString();
    const base: NewPipeline = {
      project_id: input.project.id,
      ref: target.ref,
      tag: target.refType === 'tag',
      sha: target.sha,
      before_sha: input.beforeSha ?? ZERO_SHA,
      source: input.source,
      status: 'created',
      user_id: input.user?.id ?? null,
      protected: target.protected,
      config_path: context.configPath ?? DEFAULT_CI_CONFIG_PATH,
      created_at: now,
      committed_at: target.commit.committer.date,
      trigger_id: input.triggerId ?? null,
      schedule_id: input.scheduleId ?? null,
      parent_pipeline_id: input.parent?.pipelineId ?? null,
      source_job_id: input.parent?.jobId ?? null,
      merge_request_id: input.mergeRequest?.id ?? null,
    };
    switch (result.status) {
      case 'invalid': {
        const messages = result.errors.map((error) => error.message);
        if (!input.saveOnErrors) throw new GantryError('GANTRY_E_CI_CONFIG_INVALID', messages.join(', '), { fields: { base: messages } });
        return this.insert(input, { ...base, status: 'failed', failure_reason: 'config_error', yaml_errors: messages.join(', '), finished_at: now }, null);
      }
      case 'skipped':
        if (!input.saveOnErrors) throw new GantryError('GANTRY_E_PIPELINE_FILTERED', result.reason ?? 'Pipeline skipped', { fields: { base: [result.reason ?? 'Pipeline skipped'] } });
        return this.insert(input, { ...base, status: 'skipped', finished_at: now }, null);
      case 'filtered': {
        const reason = result.reason ?? 'No stages / jobs for this pipeline.';
        throw new GantryError('GANTRY_E_PIPELINE_FILTERED', reason, { fields: { base: [reason] } });
      }
      case 'created': {
        const metadata = result.metadata;
        const row = metadata
          ? { ...base, name: metadata.name, auto_cancel_on_new_commit: metadata.autoCancelOnNewCommit, auto_cancel_on_job_failure: metadata.autoCancelOnJobFailure }
          : base;
        return this.insert(input, row, { result, context }, target.repository);
      }
    }
  }

  /**
   * One transaction: the pipeline, its variables, stages and jobs, processed (first jobs pending).
   * A pipeline with jobs gets its persistent ref `refs/pipelines/<id>` (persistent-refs.ts), written
   * while the rows are inserted and before they commit: no runner sees a job before its ref.
   */
  private async insert(
    input: PipelineCreationInput, row: NewPipeline, compiled: { result: CompileResult; context: CompileContext } | null, repository?: GitRepository,
  ): Promise<PipelineRecord> {
    const written: Array<{ id: number; ref: Promise<void> }> = [];
    const outcome = await this.deps.transactions.run(async (stores) => {
      const pipeline = await stores.pipelines.create(row);
      const ref = compiled && repository ? repository.setPipelineRef(pipeline.id, pipeline.sha) : null;
      if (ref && repository) {
        ref.catch(() => undefined); // awaited below; a failure fails the creation
        written.push({ id: pipeline.id, ref });
      }
      if (input.variables && input.variables.length > 0) await stores.pipelineVariables.add(pipeline.id, input.variables);
      let processed: Awaited<ReturnType<PipelineProcessing['applyIn']>> | null = null;
      if (compiled) {
        const stages = await stores.stages.insertMany(pipeline.id, compiled.result.stages.map((stage) => ({ name: stage.name, position: stage.index, status: 'created' as const })));
        // CI_PIPELINE_IID too: GitLab allocates it before it creates the jobs' environments.
        const pipelineVariables = [
          ...predefinedPipelineVariables(inputsFromContext(compiled.context)), { key: 'CI_PIPELINE_IID', value: String(pipeline.iid) }, ...compiled.result.workflowVariables,
        ];
        const userVariables = environmentExpansionVariables(compiled.context);
        const jobs = await stores.jobs.insertMany(failRefusedEnvironments(jobRecords(pipeline, stages, compiled.result.jobs, pipelineVariables, userVariables)));
        await ensureResourceGroups(stores, pipeline.project_id, jobs, pipeline.created_at);
        // An environment a merge request pipeline (or its child) creates is that merge request's (GitLab's `merge_request_id`).
        await recordDeployments(stores, jobs, pipeline.created_at, pipeline.merge_request_id);
        processed = await this.deps.processing.applyIn(stores, pipeline.id, { type: 'process' }, { userId: pipeline.user_id });
        processed = { ...processed, insertedJobs: jobs.map((job) => ({ id: job.id, status: job.status })) };
      }
      const saved = processed?.pipeline ?? pipeline;
      await input.inTransaction?.(stores, saved);
      await ref;
      return { pipeline: saved, processed };
    }).catch(async (error: unknown) => {
      // Nothing was saved: no ref is kept for it.
      await Promise.all(written.map(({ id, ref }) => ref.then(() => repository?.deletePipelineRef(id)).catch(() => undefined)));
      throw error;
    });
    if (outcome.processed) {
      this.deps.processing.notify(outcome.processed);
      await this.deps.redundant?.afterCreated(outcome.pipeline);
    }
    return outcome.pipeline;
  }
}

function refNotFound(): GantryError {
  return new GantryError('GANTRY_E_REF_NOT_FOUND', 'Reference not found', { fields: { base: ['Reference not found'] } });
}

function refused(message: string): GantryError {
  return new GantryError('GANTRY_E_PIPELINE_REF_FORBIDDEN', message, { fields: { base: [message] } });
}

/** `refs/heads/x` → branch x, `refs/tags/x` → tag x, `x` → either. */
export function refName(ref: string): { name: string; kind: 'branch' | 'tag' | 'either' } {
  if (ref.startsWith('refs/heads/')) return { name: ref.slice('refs/heads/'.length), kind: 'branch' };
  if (ref.startsWith('refs/tags/')) return { name: ref.slice('refs/tags/'.length), kind: 'tag' };
  return { name: ref, kind: 'either' };
}
