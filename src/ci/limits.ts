/** Limits that keep a hostile or broken CI file from hanging or crashing the compiler. */
export interface CompileLimits {
  /** Maximum size of one CI file in bytes (GitLab: `max_yaml_size_bytes`, 1 MiB by default). */
  maxFileBytes: number;
  /** Maximum nesting depth of the YAML document (GitLab: `max_yaml_depth`, 100). */
  maxYamlDepth: number;
  /** Alias expansion budget passed to the YAML parser (billion laughs protection). */
  maxAliasCount: number;
  /** Maximum number of jobs after `parallel` expansion. */
  maxJobs: number;
  /** Maximum number of included files, nested ones counted (GitLab: 100). */
  maxIncludes: number;
  /** Maximum include nesting depth. */
  maxIncludeDepth: number;
  /** Maximum ancestors of an extending entry (GitLab: 10, so 11 levels of `extends`). */
  maxExtendsDepth: number;
  /** Maximum `!reference` nesting (GitLab: 10). */
  maxReferenceDepth: number;
  /** Maximum tokens in one expression (GitLab: 100). */
  maxExpressionTokens: number;
  /**
   * Compute time one compile may take, in milliseconds: the time its worker thread is busy,
   * waits for repository reads not counted. Enforced where compiles run in the sandbox
   * (src/ci-sandbox); past it the compile fails with a configuration error.
   */
  maxCompileCpuMs: number;
  /** Heap ceiling of a compile worker thread, in MiB (enforced by the sandbox as the CPU time). */
  maxCompileMemoryMb: number;
}

export const DEFAULT_LIMITS: CompileLimits = {
  maxFileBytes: 1024 * 1024,
  maxYamlDepth: 100,
  maxAliasCount: 10_000,
  maxJobs: 2_000,
  maxIncludes: 100,
  maxIncludeDepth: 100,
  maxExtendsDepth: 10,
  maxReferenceDepth: 10,
  maxExpressionTokens: 100,
  maxCompileCpuMs: 10_000,
  maxCompileMemoryMb: 256,
};

export function resolveLimits(overrides: Partial<CompileLimits> | undefined): CompileLimits {
  return { ...DEFAULT_LIMITS, ...overrides };
}
