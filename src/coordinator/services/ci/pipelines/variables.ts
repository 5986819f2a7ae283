import type { ContextVariable, VariableSource } from '../../../../ci/model.ts';
import { INSTANCE_VARIABLES_OWNER, type CiVariableRecord, type CiVariablesStore } from '../../../../storage/types-ci-settings.ts';
import type { PipelineVariableRecord } from '../../../../storage/types-ci.ts';
import type { NamespacesStore, ProjectRecord } from '../../../../storage/types.ts';

export interface PipelineVariableSources {
  projectVariables: Pick<CiVariablesStore, 'list'>;
  groupVariables: Pick<CiVariablesStore, 'listForOwners'>;
  instanceVariables: Pick<CiVariablesStore, 'list'>;
  namespaces: Pick<NamespacesStore, 'findById' | 'ancestors'>;
}

/**
 * Every user-defined variable of a pipeline, in reference §7.2's precedence (later wins, the
 * compiler orders by source): the instance's variables, group variables from the top group down to the project's own
 * (the closest group wins), project variables with their environment scopes, then the
 * variables the run was given (trigger, API run, schedule). Which of them reach the pipeline
 * and each job (protected ones on protected refs only, scoped ones in their environments) is
 * the compiler's decision (src/ci/user-variables.ts), made once there. A `raw` instance, group
 * or project variable keeps its `$` references unexpanded; a hidden one is masked, its value
 * given to jobs as any other.
 */
export async function pipelineContextVariables(
  sources: PipelineVariableSources,
  project: ProjectRecord,
  given: readonly PipelineVariableRecord[],
  givenSource: Extract<VariableSource, 'trigger' | 'pipeline' | 'schedule'>,
): Promise<ContextVariable[]> {
  const instance = (await sources.instanceVariables.list(INSTANCE_VARIABLES_OWNER)).map((variable) => fromStored(variable, 'instance'));
  const groupIds = await namespaceChainTopDown(sources, project.namespace_id);
  const byGroup = groupIds.length > 0 ? await sources.groupVariables.listForOwners(groupIds) : new Map<number, CiVariableRecord[]>();
  const group = groupIds.flatMap((id) => byGroup.get(id) ?? []).map((variable) => fromStored(variable, 'group'));
  const own = (await sources.projectVariables.list(project.id)).map((variable) => ({ ...fromStored(variable, 'project'), environmentScope: variable.environment_scope }));
  const run = given.map((variable): ContextVariable => ({ key: variable.key, value: variable.value, file: variable.variable_type === 'file', source: givenSource }));
  return [...instance, ...group, ...own, ...run];
}

/** Group ids of the project's namespace chain, top-level group first; none for a personal namespace. */
async function namespaceChainTopDown(sources: PipelineVariableSources, namespaceId: number): Promise<number[]> {
  const namespace = await sources.namespaces.findById(namespaceId);
  if (!namespace || namespace.kind !== 'group') return [];
  const ancestors = await sources.namespaces.ancestors(namespaceId);
  return [...ancestors.reverse().map((ancestor) => ancestor.id), namespace.id];
}

function fromStored(variable: CiVariableRecord, source: VariableSource): ContextVariable {
  return {
    key: variable.key,
    value: variable.value,
    protected: variable.protected,
    masked: variable.masked,
    file: variable.variable_type === 'file',
    ...(variable.raw ? { raw: true } : {}),
    source,
  };
}
