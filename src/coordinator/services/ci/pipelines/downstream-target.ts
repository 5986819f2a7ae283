/**
 * Where a bridge's downstream pipeline goes and what it receives, with GitLab's preconditions
 * (`Ci::CreateDownstreamPipelineService#ensure_preconditions!`): the project must exist and be
 * visible to the bridge's user, a multi-project trigger may not name its own project, child
 * pipelines nest at most two levels, the user must be allowed to run pipelines there, and a
 * chain of multi-project pipelines may not loop.
 */
import { childPipelineConfig } from '../../../../ci/bridges.ts';
import type { BridgeJobDefinition, ContextVariable, ProjectTrigger, YamlVariable } from '../../../../ci/model.ts';
import type { MergeRequestInfo } from '../../../../ci/merge-request-variables.ts';
import { predefinedPipelineVariables } from '../../../../ci/pipeline-variables.ts';
import type { BridgeFailureReason, FailureReason } from '../../../../pipeline/types.ts';
import type { RepositoryManager } from '../../../../storage/git/types.ts';
import type { CiJobsStore, JobArtifactsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { PipelineRecord, PipelinesStore, PipelineVariableRecord, PipelineVariablesStore } from '../../../../storage/types-ci.ts';
import type { ProjectRecord, UserRecord } from '../../../../storage/types.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { Permissions } from '../../access/permissions.ts';
import { DEFAULT_CI_CONFIG_PATH, type PipelineSource } from './creation.ts';
import { dependencyDotenvFrom, dependencyJobsOf, dotenvByJob, mayHaveDependencies, pipelineBuilds } from './job-dependencies.ts';
import { expandVariables } from './job-records.ts';
import { pipelineContextVariables, type PipelineVariableSources } from './variables.ts';
import { applicableUserVariables } from '../../../../ci/user-variables.ts';
import { projectFullPath } from '../../namespaces/project-full-path.ts';

/** GitLab's `MAX_NESTED_CHILDREN`: a child pipeline may have a child, that one may not. */
export const MAX_NESTED_CHILDREN = 2;
/** GitLab's loop check: the same configuration at most twice in one chain of multi-project pipelines. */
const MAX_SAME_CONFIG_IN_CHAIN = 2;
/** A bound on walking upstream (GitLab's pipeline hierarchy size limit). */
const MAX_HIERARCHY = 1000;

/** What the downstream pipeline is created from. */
export interface DownstreamPlan {
  project: ProjectRecord;
  /** Full ref (`refs/heads/…`, `refs/tags/…`) or a bare branch name. */
  ref: string;
  /** Child pipelines run at the parent's sha; multi-project ones at the branch's tip. */
  sha?: string;
  source: Extract<PipelineSource, 'pipeline' | 'parent_pipeline'>;
  configContent?: string;
  variables: PipelineVariableRecord[];
  /** A multi-project bridge's `trigger:inputs`, as written: the downstream compile interpolates them. */
  inputs?: Readonly<Record<string, unknown>>;
  /** A child of a merge request pipeline is one too: the request's ref, variables and link (GitLab's `merge_request: parent_pipeline.merge_request`). */
  mergeRequest?: MergeRequestInfo;
}

export type DownstreamDecision =
  | { kind: 'create'; plan: DownstreamPlan }
  /** `errors`: what the refused creation said (the bridge's downstream errors), for `downstream_pipeline_creation_failed`. */
  | { kind: 'fail'; reason: BridgeFailureReason | Extract<FailureReason, 'pipeline_loop_detected'>; errors?: string[] };

/** The instance's, groups' and project's CI/CD variables come from `PipelineVariableSources`. */
export interface DownstreamTargetDeps extends PipelineVariableSources {
  lookup: Pick<Lookup, 'findProject'>;
  permissions: Pick<Permissions, 'canReadProject' | 'canCreatePipeline'>;
  pipelines: Pick<PipelinesStore, 'findById'>;
  pipelineVariables: Pick<PipelineVariablesStore, 'list'>;
  /** The bridge's dependencies (the pipeline's builds) and their dotenv report variables. */
  jobs: Pick<CiJobsStore, 'list'>;
  jobArtifacts: Pick<JobArtifactsStore, 'dotenvVariablesForJobs'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  /** The request a merge request pipeline ran for (undefined for other pipelines). */
  mergeRequestInfo?: (pipeline: Pick<PipelineRecord, 'merge_request_id'>) => Promise<MergeRequestInfo | undefined>;
}

type Bridge = JobRecord & { definition: BridgeJobDefinition };
type MultiProjectBridge = JobRecord & { definition: BridgeJobDefinition & { trigger: ProjectTrigger } };

/** The project and branch a bridge's downstream pipeline runs for (GitLab's `downstream_project`, `target_revision_ref`). */
export interface DownstreamRunTarget {
  project: ProjectRecord;
  ref: string;
}

/** How each bridge of one pipeline expands `$VARIABLES`, and what it forwards. */
interface BridgeExpansions {
  /** The upstream pipeline's own variables. */
  upstreamVariables: PipelineVariableRecord[];
  of(bridge: Bridge): { expand: (text: string) => string; dotenv: YamlVariable[] };
}

export class DownstreamTargets {
  constructor(private readonly deps: DownstreamTargetDeps) {}

  async decide(bridge: Bridge, upstream: PipelineRecord, upstreamProject: ProjectRecord, user: UserRecord | null): Promise<DownstreamDecision> {
    const trigger = bridge.definition.trigger;
    const expansions = await this.expansions([bridge], upstream, upstreamProject);
    const { expand, dotenv } = expansions.of(bridge);
    const expanded = (list: readonly YamlVariable[]): PipelineVariableRecord[] => list.map((variable) => ({ key: variable.key, value: expand(variable.value), variable_type: 'env_var' as const }));
    // GitLab's `Downstream::Generator`: later entries win a key (the store keeps the last).
    const variables: PipelineVariableRecord[] = [
      ...(trigger.forward.yamlVariables ? expanded(bridge.definition.variables) : []),
      ...(trigger.forward.pipelineVariables ? [...expanded(dotenv), ...expansions.upstreamVariables.map((variable) => ({ ...variable, value: expand(variable.value) }))] : []),
    ];

    if (trigger.kind === 'child') {
      if ((await this.childDepth(upstream)) > MAX_NESTED_CHILDREN) return { kind: 'fail', reason: 'reached_max_descendant_pipelines_depth' };
      const mergeRequest = await this.deps.mergeRequestInfo?.(upstream);
      const ref = mergeRequest?.refPath ?? `${upstream.tag ? 'refs/tags/' : 'refs/heads/'}${upstream.ref}`;
      const plan: DownstreamPlan = { project: upstreamProject, ref, sha: upstream.sha, source: 'parent_pipeline', configContent: childPipelineConfig(trigger), variables, ...(mergeRequest ? { mergeRequest } : {}) };
      return { kind: 'create', plan };
    }

    const project = await this.downstreamProject(trigger, expand);
    if (!project || !(await this.deps.permissions.canReadProject(project, user))) return { kind: 'fail', reason: 'downstream_bridge_project_not_found' };
    if (project.id === upstream.project_id) return { kind: 'fail', reason: 'invalid_bridge_trigger' };
    if (!user || !(await this.deps.permissions.canCreatePipeline(project, user))) return { kind: 'fail', reason: 'insufficient_bridge_permissions' };
    const branch = await this.downstreamBranch(trigger, expand, project);
    // No ref to create the pipeline for: GitLab's creation stops at its ref check.
    if (!branch) return { kind: 'fail', reason: 'downstream_pipeline_creation_failed', errors: ['Reference not found'] };
    if (await this.loops(upstream)) return { kind: 'fail', reason: 'pipeline_loop_detected' };
    return { kind: 'create', plan: { project, ref: branch, source: 'pipeline', variables, ...(trigger.inputs ? { inputs: trigger.inputs } : {}) } };
  }

  /**
   * The project and branch each bridge's downstream pipeline would run for, resolved as
   * `decide` resolves them (GitLab's `downstream_project` and `target_revision_ref`, which
   * `Ci::BridgePolicy` asks): a child pipeline this project at the bridge's ref; a
   * multi-project one `trigger:project` and `trigger:branch` expanded with the bridge's full
   * scope. By bridge id; a bridge whose project is unknown or that has no branch is left out.
   * What the bridges of one pipeline share is read once.
   */
  async runTargets(upstreamProject: ProjectRecord, bridges: readonly JobRecord[]): Promise<Map<number, DownstreamRunTarget>> {
    const targets = new Map<number, DownstreamRunTarget>();
    const multiProject: MultiProjectBridge[] = [];
    for (const bridge of bridges) {
      if (isMultiProjectBridge(bridge)) multiProject.push(bridge);
      else targets.set(bridge.id, { project: upstreamProject, ref: bridge.ref });
    }
    const projects = new Map<string, Promise<ProjectRecord | undefined>>();
    const findOnce = (path: string): Promise<ProjectRecord | undefined> => {
      const found = projects.get(path) ?? this.deps.lookup.findProject(path);
      projects.set(path, found);
      return found;
    };
    for (const pipelineId of new Set(multiProject.map((bridge) => bridge.pipeline_id))) {
      const upstream = await this.deps.pipelines.findById(pipelineId);
      if (!upstream) continue;
      const ofPipeline = multiProject.filter((bridge) => bridge.pipeline_id === pipelineId);
      const expansions = await this.expansions(ofPipeline, upstream, upstreamProject);
      for (const bridge of ofPipeline) {
        const { expand } = expansions.of(bridge);
        const project = await this.downstreamProject(bridge.definition.trigger, expand, findOnce);
        const ref = project && (await this.downstreamBranch(bridge.definition.trigger, expand, project));
        if (project && ref) targets.set(bridge.id, { project, ref });
      }
    }
    return targets;
  }

  /** GitLab's `downstream_project`: `trigger:project` expanded and found by full path (never an id); undefined when none or being deleted. */
  private async downstreamProject(
    trigger: ProjectTrigger, expand: (text: string) => string, find: (path: string) => Promise<ProjectRecord | undefined> = (path) => this.deps.lookup.findProject(path),
  ): Promise<ProjectRecord | undefined> {
    const path = expand(trigger.project).trim();
    const project = path.includes('/') ? await find(path) : undefined;
    return project && !project.pending_delete ? project : undefined;
  }

  /** GitLab's `target_ref || downstream_project.default_branch`: `trigger:branch` expanded, else the project's default branch; null or empty when there is none. */
  private async downstreamBranch(trigger: ProjectTrigger, expand: (text: string) => string, project: ProjectRecord): Promise<string | null> {
    return trigger.branch === null ? this.defaultBranch(project) : expand(trigger.branch).trim();
  }

  private async defaultBranch(project: ProjectRecord): Promise<string | null> {
    if (project.default_branch) return project.default_branch;
    if (!(await this.deps.repositories.exists(project.id))) return null;
    return this.deps.repositories.open(project.id).defaultBranch();
  }

  /**
   * What bridges of one pipeline expand `$VARIABLES` with (GitLab's `Ci::Bridge#variables`),
   * read once for all of them: predefined, the bridge's YAML variables, its dependencies'
   * dotenv report variables (the builds whose artifacts it would take, by the build jobs' rule:
   * earlier stages, or its `needs` with `artifacts: true`, as `dependency_variables`), the
   * instance's, groups' and project's CI/CD variables that reach it (protected ones on a
   * protected ref, environment-scoped ones by its environment), the pipeline's variables;
   * later ones win a key. A file-type CI/CD variable's reference is kept as written (GitLab's
   * `expand_file_refs: false`).
   */
  private async expansions(bridges: readonly Bridge[], upstream: PipelineRecord, project: ProjectRecord): Promise<BridgeExpansions> {
    const withDependencies = bridges.filter((bridge) => mayHaveDependencies(bridge, bridge.definition));
    const [upstreamVariables, builds, settings, projectPath] = await Promise.all([
      this.deps.pipelineVariables.list(upstream.id),
      withDependencies.length > 0 ? pipelineBuilds(this.deps.jobs, upstream.id) : Promise.resolve([]),
      pipelineContextVariables(this.deps, project, [], 'pipeline'),
      projectFullPath(this.deps.namespaces, project),
    ]);
    const dependencies = new Map(withDependencies.map((bridge) => [bridge.id, dependencyJobsOf(bridge, bridge.definition, builds)]));
    const dependencyIds = [...new Set([...dependencies.values()].flatMap((jobs) => jobs.map((job) => job.id)))];
    const dotenvOfJobs = dependencyIds.length > 0 ? dotenvByJob(await this.deps.jobArtifacts.dotenvVariablesForJobs(dependencyIds)) : new Map<number, ContextVariable[]>();
    const predefined = predefinedPipelineVariables({
      projectId: project.id,
      projectPath,
      defaultBranch: project.default_branch ?? undefined,
      ref: upstream.ref,
      refType: upstream.tag ? 'tag' : 'branch',
      refProtected: upstream.protected,
      sha: upstream.sha,
      beforeSha: upstream.before_sha,
      source: upstream.source,
      configPath: upstream.config_path ?? DEFAULT_CI_CONFIG_PATH,
    });
    return {
      upstreamVariables,
      of(bridge) {
        const dotenv = dependencyDotenvFrom(dotenvOfJobs, dependencies.get(bridge.id) ?? []).map(({ key, value }) => ({ key, value }));
        const ids = [
          { key: 'CI_PIPELINE_ID', value: String(upstream.id) },
          { key: 'CI_PIPELINE_IID', value: String(upstream.iid) },
          { key: 'CI_JOB_ID', value: String(bridge.id) },
          { key: 'CI_JOB_NAME', value: bridge.name },
          { key: 'CI_JOB_STAGE', value: bridge.stage },
        ];
        const reaching = applicableUserVariables(settings, upstream.protected, bridge.environment);
        const scope = [...predefined, ...ids, ...bridge.definition.variables, ...dotenv, ...reaching, ...upstreamVariables];
        const fileKeys = new Set(reaching.filter((variable) => variable.file).map((variable) => variable.key));
        return { dotenv, expand: (text) => expandVariables(text, scope, { keep: fileKeys }) };
      },
    };
  }

  /** How many pipelines of one parent/child tree lead to `pipeline`, itself included. */
  private async childDepth(pipeline: PipelineRecord): Promise<number> {
    let depth = 1;
    let current: PipelineRecord | undefined = pipeline;
    while (current && current.source === 'parent_pipeline' && current.parent_pipeline_id !== null && depth <= MAX_HIERARCHY) {
      current = await this.deps.pipelines.findById(current.parent_pipeline_id);
      if (current) depth++;
    }
    return depth;
  }

  /**
   * GitLab's `has_cyclic_dependency?`: among the upstream chain's multi-project pipelines
   * (children left out), one configuration (project, commit, CI file) occurs more than twice.
   */
  private async loops(upstream: PipelineRecord): Promise<boolean> {
    const seen = new Map<string, number>();
    let current: PipelineRecord | undefined = upstream;
    for (let walked = 0; current && walked < MAX_HIERARCHY; walked++) {
      if (current.source !== 'parent_pipeline') {
        const key = `${current.project_id}:${current.sha}:${current.config_path ?? ''}`;
        const count = (seen.get(key) ?? 0) + 1;
        if (count > MAX_SAME_CONFIG_IN_CHAIN) return true;
        seen.set(key, count);
      }
      current = current.parent_pipeline_id === null ? undefined : await this.deps.pipelines.findById(current.parent_pipeline_id);
    }
    return false;
  }
}

function isMultiProjectBridge(job: JobRecord): job is MultiProjectBridge {
  return job.type === 'bridge' && job.definition?.trigger?.kind === 'project';
}
