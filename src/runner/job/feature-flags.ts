/** gitlab-runner's feature flags (`FF_*`), as a job sees them. */
import type { JobSettings } from './context.ts';
import { goBool } from './go-values.ts';

/**
 * gitlab-runner's `IsFeatureFlagOn`: the runner's `[runners.feature_flags]` first (a job's
 * variables cannot override them, gitlab-runner 13.x's config flags and its 18.x settings alike),
 * then the job's variables (and the runner's `environment`, which they override) as Go's
 * ParseBool reads them; off otherwise.
 */
export function isFeatureFlagOn(name: string, variables: readonly { key: string; value: string }[], settings: Pick<JobSettings, 'environment' | 'featureFlags'>): boolean {
  const configured = settings.featureFlags?.[name];
  if (configured !== undefined) return configured;
  const fromEnvironment = [...settings.environment].reverse().find((entry) => entry.startsWith(`${name}=`))?.slice(name.length + 1);
  const value = [...variables].reverse().find((variable) => variable.key === name)?.value ?? fromEnvironment;
  return goBool(value) ?? false;
}
