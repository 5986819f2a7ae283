import type { ContextVariable, VariableSource } from '../../../../ci/model.ts';
import { wildcardMatches } from '../../../../shared/glob.ts';
import type { CiVariableRecord, CiVariablesStore } from '../../../../storage/types-ci-settings.ts';
import type { PipelineVariableRecord } from '../../../../storage/types-ci.ts';
import type { NamespacesStore, ProjectRecord } from '../../../../storage/types.ts';

export interface PipelineVariableSources {
  projectVariables: Pick<CiVariablesStore, 'list'>;
  groupVariables: Pick<CiVariablesStore, 'listForOwners'>;
  namespaces: Pick<NamespacesStore, 'findById' | 'ancestors'>;
}

/**
 * The user-defined variables of a pipeline, in reference §7.2's precedence (later wins, the
 * compiler orders by source): group variables from the top group down to the project's own
 * (the closest group wins), project variables, then the variables the run was given
 * (trigger, API run, schedule). Protected ones stay on protected refs only. Project variables
 * scoped to environments reach only a job of a matching environment (`environment`, the job
 * payload gives it); without one (pipeline creation, `rules`), only those scoped to `*`.
 */
export async function pipelineContextVariables(
  sources: PipelineVariableSources,
  project: ProjectRecord,
  given: readonly PipelineVariableRecord[],
  givenSource: Extract<VariableSource, 'trigger' | 'pipeline' | 'schedule'>,
  refProtected: boolean,
  environment: string | null = null,
): Promise<ContextVariable[]> {
  const groupIds = await namespaceChainTopDown(sources, project.namespace_id);
  const byGroup = groupIds.length > 0 ? await sources.groupVariables.listForOwners(groupIds) : new Map<number, CiVariableRecord[]>();
  const group = groupIds.flatMap((id) => byGroup.get(id) ?? []).map((variable) => fromStored(variable, 'group'));
  const projectVariables = (await sources.projectVariables.list(project.id)).filter((variable) => refProtected || !variable.protected);
  const own = forEnvironment(projectVariables, environment).map((variable) => fromStored(variable, 'project'));
  const run = given.map((variable): ContextVariable => ({ key: variable.key, value: variable.value, file: variable.variable_type === 'file', source: givenSource }));
  return [...group, ...own, ...run].filter((variable) => refProtected || !variable.protected);
}

/**
 * GitLab's `on_environment`: the variables whose `environment_scope` is `*`, the environment's
 * name, or a pattern (`*` matching any characters, `/` included) the name matches; without an
 * environment only `*`. Of several with one key, the most specific wins: the exact name, then
 * the pattern with the most literal characters, then `*`. Protected ones are left out before
 * (a protected match on an unprotected ref does not hide an unprotected, wider one).
 */
export function forEnvironment(variables: readonly CiVariableRecord[], environment: string | null): CiVariableRecord[] {
  const chosen = new Map<string, { variable: CiVariableRecord; rank: number }>();
  for (const variable of variables) {
    const rank = scopeRank(variable.environment_scope, environment);
    if (rank === undefined) continue;
    const held = chosen.get(variable.key);
    if (!held || rank > held.rank) chosen.set(variable.key, { variable, rank });
  }
  return variables.filter((variable) => chosen.get(variable.key)?.variable === variable);
}

/** How specific a scope is for the environment (higher wins); undefined when it does not apply. */
function scopeRank(scope: string, environment: string | null): number | undefined {
  if (scope === '*') return 0;
  if (environment === null) return undefined;
  if (scope === environment) return Number.MAX_SAFE_INTEGER;
  if (!scope.includes('*')) return undefined;
  return wildcardMatches(scope, environment) ? 1 + scope.replaceAll('*', '').length : undefined;
}

/** Group ids of the project's namespace chain, top-level group first; none for a personal namespace. */
async function namespaceChainTopDown(sources: PipelineVariableSources, namespaceId: number): Promise<number[]> {
  const namespace = await sources.namespaces.findById(namespaceId);
  if (!namespace || namespace.kind !== 'group') return [];
  const ancestors = await sources.namespaces.ancestors(namespaceId);
  return [...ancestors.reverse().map((ancestor) => ancestor.id), namespace.id];
}

function fromStored(variable: CiVariableRecord, source: VariableSource): ContextVariable {
  return { key: variable.key, value: variable.value, protected: variable.protected, masked: variable.masked, file: variable.variable_type === 'file', source };
}
