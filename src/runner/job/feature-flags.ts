/** gitlab-runner's feature flags (`FF_*`), as a job sees them. */
import type { JobSettings } from './context.ts';
import { goBool } from './go-values.ts';

/**
 * gitlab-runner's `IsFeatureFlagOn`: the job's variables (and the runner's `environment`)
 * first, as Go's ParseBool reads them, then the runner's `[runners.feature_flags]`.
 */
export function isFeatureFlagOn(name: string, variables: readonly { key: string; value: string }[], settings: Pick<JobSettings, 'environment' | 'featureFlags'>): boolean {
  const fromEnvironment = [...settings.environment].reverse().find((entry) => entry.startsWith(`${name}=`))?.slice(name.length + 1);
  const value = [...variables].reverse().find((variable) => variable.key === name)?.value ?? fromEnvironment;
  return goBool(value) ?? settings.featureFlags?.[name] === true;
}

