/**
 * gitlab-runner's ARTIFACT_COMPRESSION_LEVEL and CACHE_COMPRESSION_LEVEL: read only with
 * FF_USE_FASTZIP (its fastzip archiver's deflate levels; `fastest` stores, the uncompressed zip
 * GitLab Pages needs for range requests). Without the flag the archiver's default applies.
 */
import type { JobContext } from './context.ts';
import { isFeatureFlagOn } from './feature-flags.ts';
import { variableValue } from './variables.ts';

const FASTZIP_LEVELS: Record<string, number> = { fastest: 0, fast: 1, default: 5, slow: 7, slowest: 9 };

/** The deflate level (0: stored) an archive is written with, or undefined for the default. */
export function zipCompressionLevel(context: Pick<JobContext, 'variables' | 'settings'>, variable: 'ARTIFACT_COMPRESSION_LEVEL' | 'CACHE_COMPRESSION_LEVEL'): number | undefined {
  if (!isFeatureFlagOn('FF_USE_FASTZIP', context.variables, context.settings)) return undefined;
  return FASTZIP_LEVELS[variableValue(context.variables, variable) ?? ''] ?? FASTZIP_LEVELS.default;
}
