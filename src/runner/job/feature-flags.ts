/** gitlab-runner's feature flags (`FF_*`), as a job sees them. */
import type { JobSettings } from './context.ts';

/**
 * gitlab-runner's `IsFeatureFlagOn`: the job's variables (and the runner's `environment`)
 * first, as Go's ParseBool reads them, then the runner's `[runners.feature_flags]`.
 */
export function isFeatureFlagOn(name: string, variables: readonly { key: string; value: string }[], settings: Pick<JobSettings, 'environment' | 'featureFlags'>): boolean {
  const fromEnvironment = [...settings.environment].reverse().find((entry) => entry.startsWith(`${name}=`))?.slice(name.length + 1);
  const value = [...variables].reverse().find((variable) => variable.key === name)?.value ?? fromEnvironment;
  return goBool(value) ?? settings.featureFlags?.[name] === true;
}

/** Go's strconv.ParseBool: the boolean, or undefined for anything else. */
export function goBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}
