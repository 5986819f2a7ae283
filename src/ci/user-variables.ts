/**
 * Which user-defined variables (instance, group, project, and those a run was given) reach a
 * pipeline and its jobs, and in which order: the one place of the protected-variable rule and
 * of environment scopes. The coordinator hands every stored variable in; nothing filters
 * before or after.
 */
import { wildcardMatches } from '../shared/glob.ts';
import type { ContextVariable, VariableSource } from './model.ts';

/** The protected-variable rule: a protected variable reaches pipelines and jobs of protected refs only. */
export function reachesRef(variable: Pick<ContextVariable, 'protected'>, refProtected: boolean): boolean {
  return refProtected || variable.protected !== true;
}

// GitLab's Ci::Variables::Builder: dependencies' dotenv variables above the YAML's and the
// user's (GITLAB_USER_*), below instance, group, project and the run's.
const SOURCE_ORDER: VariableSource[] = ['dotenv', 'instance', 'group', 'project', 'trigger', 'pipeline', 'schedule'];

/**
 * The user variables of a pipeline (`environment` null: only unscoped ones and those scoped
 * to `*`) or of a job of an environment, in precedence order (later wins): protected ones
 * only on protected refs, then environment scopes, then by source.
 */
export function applicableUserVariables(variables: readonly ContextVariable[], refProtected: boolean, environment: string | null = null): ContextVariable[] {
  return forEnvironment(
    variables.filter((variable) => reachesRef(variable, refProtected)),
    environment,
  )
    .map((variable, position) => ({ variable, position }))
    .sort((a, b) => {
      const order = SOURCE_ORDER.indexOf(a.variable.source ?? 'project') - SOURCE_ORDER.indexOf(b.variable.source ?? 'project');
      return order !== 0 ? order : a.position - b.position;
    })
    .map(({ variable }) => variable);
}

/**
 * GitLab's `on_environment`, among the variables that carry an `environmentScope` (others
 * pass): those whose scope is `*`, the environment's name, or a pattern (`*` matching any
 * characters, `/` included) the name matches; without an environment only `*`. Of several
 * with one key, the most specific wins: the exact name, then the pattern with the most
 * literal characters, then `*`. Protected ones are left out before (applicableUserVariables),
 * so a protected match on an unprotected ref does not hide an unprotected, wider one.
 */
export function forEnvironment<T extends Pick<ContextVariable, 'key' | 'environmentScope'>>(variables: readonly T[], environment: string | null): T[] {
  const chosen = new Map<string, { variable: T; rank: number }>();
  for (const variable of variables) {
    if (variable.environmentScope === undefined) continue;
    const rank = scopeRank(variable.environmentScope, environment);
    if (rank === undefined) continue;
    const held = chosen.get(variable.key);
    if (!held || rank > held.rank) chosen.set(variable.key, { variable, rank });
  }
  return variables.filter((variable) => variable.environmentScope === undefined || chosen.get(variable.key)?.variable === variable);
}

/** How specific a scope is for the environment (higher wins); undefined when it does not apply. */
function scopeRank(scope: string, environment: string | null): number | undefined {
  if (scope === '*') return 0;
  if (environment === null) return undefined;
  if (scope === environment) return Number.MAX_SAFE_INTEGER;
  if (!scope.includes('*')) return undefined;
  return wildcardMatches(scope, environment) ? 1 + scope.replaceAll('*', '').length : undefined;
}
