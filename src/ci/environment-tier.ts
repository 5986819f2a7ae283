/** An environment's deployment tier (`environment:deployment_tier`, `CI_ENVIRONMENT_TIER`). */

export const ENVIRONMENT_TIERS = ['production', 'staging', 'testing', 'development', 'other'] as const;
export type EnvironmentTier = (typeof ENVIRONMENT_TIERS)[number];

export function isEnvironmentTier(value: unknown): value is EnvironmentTier {
  return ENVIRONMENT_TIERS.includes(value as EnvironmentTier);
}

/** GitLab's guess from the name when a job names no tier (`Environment#guess_tier`); the first match wins. */
const GUESSES: ReadonlyArray<[RegExp, EnvironmentTier]> = [
  [/(dev|review|trunk)/i, 'development'],
  [/(test|tst|int|ac(ce|)pt|qa|qc|control|quality)/i, 'testing'],
  [/(st(a|)g|mod(e|)l|pre|demo|non)/i, 'staging'],
  [/(pr(o|)d|live)/i, 'production'],
];

export function environmentTier(name: string, declared: EnvironmentTier | null | undefined): EnvironmentTier {
  if (declared) return declared;
  return GUESSES.find(([pattern]) => pattern.test(name))?.[1] ?? 'other';
}
