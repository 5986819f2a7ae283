/** The CI compiler: pure, no I/O except through the reader in the context. */
export { compilePipeline, failedCompile, NO_JOBS_LEGACY, NO_JOBS_RULES, WORKFLOW_FILTERED, type PipelineCompiler } from './compile.ts';
export type { Diagnostic, Severity } from './diagnostics.ts';
export { DEFAULT_LIMITS, type CompileLimits } from './limits.ts';
export type * from './model.ts';
export { toJobPayload } from './to-payload.ts';
export { childPipelineConfig, describeTrigger, isBridge } from './bridges.ts';
export type { PayloadIds, PayloadTokens, PayloadGitInfo, PayloadServerInfo, PayloadPipelineInfo } from './to-payload.ts';
export { formatDiagnostic, formatLintText, lintReport, type LintJob, type LintReport } from './lint-format.ts';
export {
  ExpressionError,
  evaluateExpression,
  expressionIsTrue,
  parseExpression,
  type ExpressionNode,
} from './expression/index.ts';
export { refSlug, environmentSlug } from './slug.ts';
