import type { BuildJobDefinition } from '../../../../ci/model.ts';
import { expandNested, type ExpandableVariable } from '../../../../ci/nested-expansion.ts';
import type { CiJobsStore, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { PipelineRecord, PipelinesStore, PipelineVariablesStore } from '../../../../storage/types-ci.ts';

export interface CrossPipelineStores {
  pipelines: Pick<PipelinesStore, 'findById'>;
  pipelineVariables: Pick<PipelineVariablesStore, 'list'>;
  jobs: Pick<CiJobsStore, 'list'>;
}

export interface CrossPipelineDependencies {
  jobs: JobRecord[];
  /** GitLab's `valid_cross_pipeline?`: every need that takes artifacts found a job. */
  valid: boolean;
}

/** Parent-child nesting is bounded (GitLab allows two levels); a longer chain of parents is not followed. */
const MAX_ANCESTORS = 10;

/** Whether the job takes artifacts from jobs of other pipelines (`needs: [{pipeline, job}]`). */
export function hasCrossPipelineDependencies(definition: BuildJobDefinition): boolean {
  return definition.crossPipelineNeeds?.some((need) => need.artifacts) === true;
}

/**
 * GitLab's `Ci::BuildDependencies#cross_pipeline`: each `needs: [{pipeline, job}]` that takes
 * artifacts, its `pipeline` and `job` expanded with the job's variables (here: the pipeline's
 * own variables, those a parent's trigger passed among them, over the job's YAML variables),
 * names the latest successful build of that name in that pipeline, which must be of the job's
 * parent-child hierarchy (the same root pipeline of the project) and not the job's own pipeline (its local
 * needs say that). The job's dependencies are valid only when each need found its job.
 */
export async function crossPipelineDependenciesOf(stores: CrossPipelineStores, job: JobRecord, definition: BuildJobDefinition): Promise<CrossPipelineDependencies> {
  const specified = (definition.crossPipelineNeeds ?? []).filter((need) => need.artifacts);
  if (specified.length === 0) return { jobs: [], valid: true };
  const variables = new Map<string, ExpandableVariable>();
  for (const variable of definition.variables) variables.set(variable.key, { value: variable.value, raw: variable.raw === true });
  for (const variable of await stores.pipelineVariables.list(job.pipeline_id)) variables.set(variable.key, { value: variable.value });
  const expand = (text: string) => expandNested(text, (name) => variables.get(name));
  const wanted = specified
    .map((need) => ({ pipelineId: rubyToInteger(expand(need.pipeline)), name: expand(need.job) }))
    .filter((need) => need.pipelineId !== job.pipeline_id);
  const ownRoot = await rootPipelineId(stores, job.pipeline_id);
  const found: JobRecord[] = [];
  for (const pipelineId of new Set(wanted.map((need) => need.pipelineId))) {
    const pipeline = await stores.pipelines.findById(pipelineId);
    if (!pipeline || pipeline.project_id !== job.project_id || (await rootPipelineId(stores, pipeline.id, pipeline)) !== ownRoot) continue;
    const names = new Set(wanted.filter((need) => need.pipelineId === pipelineId).map((need) => need.name));
    const { items } = await stores.jobs.list({ pipelineId, types: ['build'], statuses: ['success'] }, { offset: 0, limit: 100_000 });
    found.push(...items.filter((build) => names.has(build.name)));
  }
  return { jobs: found, valid: found.length === specified.length };
}

/** GitLab's `root_ancestor` of the same project: the top of the chain of upstream pipelines of the pipeline's project. */
async function rootPipelineId(stores: CrossPipelineStores, pipelineId: number, known?: PipelineRecord): Promise<number> {
  let current = known ?? (await stores.pipelines.findById(pipelineId));
  for (let depth = 0; current && current.parent_pipeline_id !== null && depth < MAX_ANCESTORS; depth += 1) {
    const parent = await stores.pipelines.findById(current.parent_pipeline_id);
    if (!parent || parent.project_id !== current.project_id) break;
    current = parent;
  }
  return current?.id ?? pipelineId;
}

/** Ruby's `String#to_i` of an id: the leading decimal digits, 0 when there are none. */
function rubyToInteger(text: string): number {
  const match = /^\s*[+-]?\d+/.exec(text);
  return match ? Number.parseInt(match[0], 10) : 0;
}
