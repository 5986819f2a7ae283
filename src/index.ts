/** Gantry's library entry: embed the coordinator, compile CI files, use the wire types. */
export { createCoordinator, gantryPlugin, type Coordinator, type CoordinatorOptions, type GantryPluginOptions, type MountedRoute } from './coordinator/app.ts';
export { compilePipeline, toJobPayload, lintReport, formatLintText, DEFAULT_LIMITS } from './ci/index.ts';
export type { CompileContext, CompileResult, CompileLimits, Diagnostic, PipelineCompiler } from './ci/index.ts';
export { CompileSandbox, type CompileSandboxOptions } from './ci-sandbox/index.ts';
export type * from './protocol/index.ts';
export { ERROR_CATALOGUE, ERROR_CODES, GantryError, isGantryError, type ErrorCode, type ErrorDetails, type ParamProblem } from './shared/errors.ts';
