import { accessDenied, GantryError } from '../../../../shared/errors.ts';
import type { TriggersStore } from '../../../../storage/types-ci-settings.ts';
import type { CiVariableType, PipelineRecord, PipelineVariableRecord } from '../../../../storage/types-ci.ts';
import type { CiJobsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { ProjectRecord, UserRecord, UsersStore } from '../../../../storage/types.ts';
import { jobTokenDigest } from '../runners/job-tokens.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { Permissions } from '../../access/permissions.ts';
import type { PipelineCreation } from './creation.ts';
import { checkPipelineVariableCount } from './pipeline-variable-limits.ts';

/** A pipeline with what its detailed JSON shows besides its row. */
export interface PipelineView {
  pipeline: PipelineRecord;
  user: UserRecord | null;
  /** `group/project`, for web_url. */
  projectPath: string;
}

export interface ApiPipelineRun {
  ref: string;
  variables: ReadonlyArray<{ key: string; value: string; variableType: CiVariableType }>;
  /** Inputs for the CI file's `spec:inputs` header, as the request gave them. */
  inputs?: Readonly<Record<string, unknown>>;
}

export interface TriggeredPipelineRun {
  projectRef: string;
  token: string;
  ref: string;
  variables: Readonly<Record<string, string>>;
  inputs?: Readonly<Record<string, unknown>>;
}

export interface PipelineRunsDeps {
  creation: Pick<PipelineCreation, 'create'>;
  lookup: Pick<Lookup, 'readableProject' | 'findProject'>;
  permissions: Pick<Permissions, 'canCreatePipeline' | 'canReadProject'>;
  /** Jobs by token digest: a running job's token (CI_JOB_TOKEN) works as a trigger token. */
  jobs?: Pick<CiJobsStore, 'findByTokenDigest'>;
  triggers: Pick<TriggersStore, 'findByToken' | 'update'>;
  users: Pick<UsersStore, 'findById'>;
  namespaces: { findById(id: number): Promise<{ full_path: string } | undefined> };
  clock?: () => number;
}

const KEY_PATTERN = /^[A-Za-z0-9_]+$/;
const KEY_MESSAGE = "can contain only letters, digits and '_'.";

/** Pipelines run by hand: `POST /projects/:id/pipeline` and pipeline trigger tokens. */
export class PipelineRuns {
  constructor(private readonly deps: PipelineRunsDeps) {}

  /** Developers and up; errors are refused with GitLab's messages and nothing is saved. */
  async runFromApi(projectRef: string, actor: UserRecord, run: ApiPipelineRun): Promise<PipelineView> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canCreatePipeline(project, actor))) throw accessDenied();
    checkPipelineVariableCount(run.variables.length);
    const variables = checkedVariables(run.variables.map((variable) => ({ key: variable.key, value: variable.value, variable_type: variable.variableType })));
    const pipeline = await this.deps.creation.create({ project, ref: run.ref, source: 'api', user: actor, variables, saveOnErrors: false, ignoreSkipCi: true, ...(run.inputs ? { inputs: run.inputs } : {}) });
    return this.view(pipeline);
  }

  /**
   * The trigger token is the credential; the pipeline runs as the trigger's owner. A running
   * job's token (CI_JOB_TOKEN) works too: see {@link runFromJob}.
   */
  async runFromTrigger(run: TriggeredPipelineRun): Promise<PipelineView> {
    const project = await this.deps.lookup.findProject(run.projectRef);
    if (!project || project.pending_delete) throw new GantryError('GANTRY_E_TRIGGER_TOKEN_INVALID');
    const trigger = await this.deps.triggers.findByToken(run.token);
    if (!trigger) {
      const job = this.deps.jobs ? await this.deps.jobs.findByTokenDigest(jobTokenDigest(run.token)) : undefined;
      if (job && job.type === 'build') return this.runFromJob(project, job, run);
      throw new GantryError('GANTRY_E_TRIGGER_TOKEN_INVALID');
    }
    if (trigger.project_id !== project.id) throw new GantryError('GANTRY_E_TRIGGER_TOKEN_INVALID');
    checkPipelineVariableCount(Object.keys(run.variables).length);
    const variables = checkedVariables(Object.entries(run.variables).map(([key, value]) => ({ key, value, variable_type: 'env_var' as const })));
    const owner = trigger.owner_id === null ? null : ((await this.deps.users.findById(trigger.owner_id)) ?? null);
    const now = new Date((this.deps.clock ?? Date.now)()).toISOString();
    await this.deps.triggers.update(trigger.id, { last_used: now });
    const pipeline = await this.deps.creation.create({ project, ref: run.ref, source: 'trigger', user: owner, variables, triggerId: trigger.id, saveOnErrors: true, ignoreSkipCi: true, ...(run.inputs ? { inputs: run.inputs } : {}) });
    return this.view(pipeline);
  }

  /**
   * GitLab's PipelineTriggerService with a job token (a multi-project pipeline from a job's
   * script): the job must be running (else 401 with GitLab's reason); the pipeline runs as the
   * job's user, who must be able to read the project (else 404, as for a wrong token) and
   * create a pipeline for the ref there; its source is `pipeline` and its upstream is the
   * job's pipeline, through the job, as a bridge's downstream pipeline records it.
   */
  private async runFromJob(project: ProjectRecord, job: JobRecord, run: TriggeredPipelineRun): Promise<PipelineView> {
    if (job.status !== 'running') throw new GantryError('GANTRY_E_TRIGGER_JOB_REFUSED', 'Job is not running');
    if (job.erased_at !== null) throw new GantryError('GANTRY_E_TRIGGER_JOB_REFUSED', 'Job has been erased!');
    const upstreamProject = await this.deps.lookup.findProject(job.project_id);
    if (!upstreamProject || upstreamProject.pending_delete) throw new GantryError('GANTRY_E_TRIGGER_JOB_REFUSED', 'Project has been deleted!');
    const user = job.user_id === null ? undefined : await this.deps.users.findById(job.user_id);
    const active = user !== undefined && user.state === 'active' && !user.is_ghost;
    if (!active || !(await this.deps.permissions.canReadProject(project, user))) throw new GantryError('GANTRY_E_TRIGGER_TOKEN_INVALID');
    checkPipelineVariableCount(Object.keys(run.variables).length);
    const variables = checkedVariables(Object.entries(run.variables).map(([key, value]) => ({ key, value, variable_type: 'env_var' as const })));
    const pipeline = await this.deps.creation.create({
      project, ref: run.ref, source: 'pipeline', user, variables, parent: { pipelineId: job.pipeline_id, jobId: job.id },
      saveOnErrors: true, ignoreSkipCi: true, ...(run.inputs ? { inputs: run.inputs } : {}),
    });
    return this.view(pipeline);
  }

  async view(pipeline: PipelineRecord): Promise<PipelineView> {
    const user = pipeline.user_id === null ? null : ((await this.deps.users.findById(pipeline.user_id)) ?? null);
    const project = await this.deps.lookup.findProject(pipeline.project_id);
    const namespace = project ? await this.deps.namespaces.findById(project.namespace_id) : undefined;
    return { pipeline, user, projectPath: namespace && project ? `${namespace.full_path}/${project.path}` : String(pipeline.project_id) };
  }
}

/** Keys of letters, digits and `_`, at most 255 characters (GitLab's Ci::PipelineVariable rules). */
function checkedVariables(variables: PipelineVariableRecord[]): PipelineVariableRecord[] {
  const problems: string[] = [];
  for (const variable of variables) {
    if (!KEY_PATTERN.test(variable.key)) problems.push(`key ${KEY_MESSAGE}`);
    else if (variable.key.length > 255) problems.push('key is too long (maximum is 255 characters)');
  }
  if (problems.length > 0) throw new GantryError('GANTRY_E_VALIDATION_FAILED', `variables ${problems.join(', ')}`, { fields: { variables: [...new Set(problems)] } });
  return variables;
}

