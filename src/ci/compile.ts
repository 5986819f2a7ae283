/**
 * The compile path: load → include → extends → !reference → validate → parallel →
 * cross-job checks → [ci skip] → workflow:rules → per-job inclusion → pipeline.
 */
import { ConditionContext } from './conditions.ts';
import { DiagnosticSink, SourceLocator } from './diagnostics.ts';
import { readJobEntry } from './entries/jobs.ts';
import { readRoot, type RootConfig } from './entries/root.ts';
import { expandExtends } from './extends.ts';
import { expandIncludes, type IncludeRulesEvaluator } from './include.ts';
import { evaluateJob, firstMatchingWorkflowRule } from './inclusion.ts';
import type { JobConfig } from './job-config.ts';
import { resolveCacheKeys } from './cache-keys.ts';
import { resolveLimits, type CompileLimits } from './limits.ts';
import { checkNeedsCycles, checkReferences, checkStages, warnAboutRulesWhen } from './logical-checks.ts';
import type { AutoCancelConfig, CompileContext, CompileResult, IncludedFile, JobDefinition, YamlVariable } from './model.ts';
import { mergeAutoCancel } from './entries/auto-cancel.ts';
import { pipelineName } from './pipeline-name.ts';
import { expandParallel, type ExpandedJob } from './parallel.ts';
import { mergeVariables } from './entries/variables.ts';
import { expandExisting } from './nested-expansion.ts';
import { inputsFromContext, jobAttributeVariables, predefinedPipelineVariables, variableLookup } from './pipeline-variables.ts';
import { resolveReferences } from './reference.ts';
import { applicableUserVariables } from './user-variables.ts';
import type { PlainObject } from './values.ts';
import { INVALID_FORMAT_MESSAGE, loadYaml, TOO_BIG_MESSAGE } from './yaml-loader.ts';
import { applyInputs, inputsFromText, parsePipelineInputs } from './inputs.ts';
import { includeVariables, type IncludeVariables } from './include-variables.ts';
import { componentPrefixes } from './include-component.ts';

const SKIP_CI = /\[(ci[ _-]skip|skip[ _-]ci)\]/i;
export const WORKFLOW_FILTERED = 'Pipeline filtered out by workflow rules.';
export const NO_JOBS_LEGACY = 'No stages / jobs for this pipeline.';
export const NO_JOBS_RULES =
  'Pipeline will not run for the selected trigger. The rules configuration prevented any jobs from being added to the pipeline.';

/** What compiles a CI file: `compilePipeline` itself, or the sandbox that runs it in a worker. */
export type PipelineCompiler = (text: string, context: CompileContext) => Promise<CompileResult>;

/** Compiles a CI file for one pipeline. Never throws for bad configuration: see `errors`. */
export async function compilePipeline(text: string, context: CompileContext): Promise<CompileResult> {
  const limits = resolveLimits(context.limits);
  const configPath = context.configPath ?? '.gitlab-ci.yml';
  const locator = new SourceLocator();
  const sink = new DiagnosticSink(locator);

  const includes: IncludedFile[] = [];
  const config = await loadConfiguration(text, configPath, context, limits, sink, locator, includes);
  if (!config) return invalid(sink);
  const merged = (result: CompileResult): CompileResult => (result.status === 'invalid' ? result : { ...result, mergedConfig: config, includes });
  return merged(await compileMerged(config, context, limits, sink, locator.nonTextTopLevelKeys()));
}

async function compileMerged(config: PlainObject, context: CompileContext, limits: CompileLimits, sink: DiagnosticSink, nonTextNames: Set<string>): Promise<CompileResult> {
  const root = readRoot(config, sink, limits.maxExpressionTokens);
  const conditions = new ConditionContext(context, limits.maxExpressionTokens);
  const pipelineInputs = inputsFromContext(context);
  const predefined = predefinedPipelineVariables(pipelineInputs);
  const userVariables = applicableUserVariables(context.variables ?? [], pipelineInputs.refProtected);

  // workflow:rules variables override the global ones and are overridden by the job's.
  let workflow: { filtered: boolean; variables: YamlVariable[]; autoCancel: AutoCancelConfig | null } = { filtered: false, variables: [], autoCancel: null };
  if (root.workflow.rules && !sink.hasErrors) {
    const lookup = variableLookup(predefined, root.globalVariables, userVariables);
    const matched = await firstMatchingWorkflowRule(root.workflow.rules, conditions, lookup);
    const rule = matched === null ? undefined : root.workflow.rules[matched];
    workflow = { filtered: !rule || rule.when === 'never', variables: rule?.variables ?? [], autoCancel: rule?.autoCancel ?? null };
  }
  const workflowVariables = workflow.variables;
  const globalVariables = mergeVariables(root.globalVariables, workflowVariables);
  const jobs = readJobs({ ...root, globalVariables }, sink, limits, nonTextNames);
  // Entry warnings stay with entry errors, as GitLab's result keeps both.
  warnAboutRulesWhen(jobs, root.workflow.rules !== null, sink);
  if (sink.hasErrors) return invalid(sink);

  const expanded = expandParallel(jobs, sink);
  if (sink.hasErrors) return invalid(sink);
  if (expanded.length > limits.maxJobs) {
    sink.error(`Pipeline has too many jobs! Requested ${expanded.length}, but the limit is ${limits.maxJobs}.`, []);
    return invalid(sink);
  }
  checkStages(expanded, root.stages, sink);
  checkReferences(expanded, root.stages, sink);
  if (!sink.hasErrors) checkNeedsCycles(expanded, sink);
  if (sink.hasErrors) return invalid(sink);

  const declaredStages = root.stages;
  if (!context.ignoreSkipCi && SKIP_CI.test(context.commitMessage ?? '')) {
    return emptyResult('skipped', declaredStages, sink, 'Pipeline skipped by [ci skip] in the commit message.', []);
  }
  if (!context.ignoreSkipCi && context.skipCi === true) return emptyResult('skipped', declaredStages, sink, 'Pipeline skipped by the ci.skip push option.', []);
  if (workflow.filtered) return emptyResult('filtered', declaredStages, sink, WORKFLOW_FILTERED, []);

  const definitions: JobDefinition[] = [];
  const ruleErrors: Array<{ job: JobDefinition; message: string }> = [];
  for (const job of expanded) {
    const own = jobAttributeVariables({ name: job.config.name, stage: job.config.stage, when: job.config.when, parallel: job.parallel });
    const lookup = variableLookup(own, predefined, job.config.variables, userVariables);
    const outcome = await evaluateJob(job.config, conditions, lookup, root.workflow.rules !== null);
    const definition = toDefinition(job, outcome, declaredStages);
    // GitLab's Seed::Build#evaluate_runner_tags: a tag's `$VARIABLES` expanded with the job's
    // variables (those its rules see), one that is not set left as written.
    if (definition.tags.length > 0) definition.tags = definition.tags.map((tag) => expandExisting(tag, (name) => valueOf(lookup, name)));
    definitions.push(definition);
    if (outcome.ruleError) ruleErrors.push({ job: definition, message: outcome.ruleError });
  }

  const included = definitions.filter((job) => job.inclusion.included);
  const excludedJobs = definitions.filter((job) => !job.inclusion.included);
  // GitLab's seed reports first the rules it could not evaluate, stage by stage.
  for (const { job, message } of ruleErrors.sort((a, b) => a.job.stageIndex - b.job.stageIndex)) sink.error(message, [job.baseName, 'rules']);
  checkNeedsPresent(included, sink);
  if (sink.hasErrors) return invalid(sink, declaredStages);

  const stageOrdered = orderByStage(included, declaredStages);
  const hasRegularJob = stageOrdered.some((job) => job.stage !== '.pre' && job.stage !== '.post');
  if (!hasRegularJob) {
    const usesRules = jobs.some((job) => job.rules !== null) || root.workflow.rules !== null;
    return { ...emptyResult('filtered', declaredStages, sink, usesRules ? NO_JOBS_RULES : NO_JOBS_LEGACY, workflowVariables), excludedJobs };
  }
  await resolveCacheKeys(stageOrdered, expanded, context.files);
  const stages = declaredStages
    .map((name, index) => ({ name, index }))
    .filter((stage) => stageOrdered.some((job) => job.stage === stage.name));
  return {
    status: 'created',
    stages,
    declaredStages,
    jobs: stageOrdered,
    excludedJobs,
    errors: [],
    warnings: sink.warnings,
    reason: null,
    workflowVariables,
    metadata: {
      name: pipelineName(root.workflow.name, variableLookup(predefined, globalVariables, userVariables)),
      ...mergeAutoCancel(root.workflow.autoCancel, workflow.autoCancel),
    },
  };
}

async function loadConfiguration(
  text: string,
  configPath: string,
  context: CompileContext,
  limits: CompileLimits,
  sink: DiagnosticSink,
  locator: SourceLocator,
  includes: IncludedFile[],
): Promise<PlainObject | null> {
  const loaded = loadYaml(text, configPath, limits);
  if (!loaded.ok) {
    const message =
      loaded.failure === 'empty'
        ? `Please provide content of ${configPath}`
        : loaded.failure === 'too-big'
          ? TOO_BIG_MESSAGE
          : loaded.failure === 'disallowed-class'
            ? loaded.detail
            : INVALID_FORMAT_MESSAGE;
    sink.errorAt(message, configPath, loaded.line);
    return null;
  }
  locator.add(loaded.positions);
  const variables = includeVariables(context);
  const given = context.inputs && (context.inputsAreText ? inputsFromText(loaded.header, context.inputs) : parsePipelineInputs(context.inputs));
  const applied = applyInputs(loaded.value, loaded.header, given, variables.lookup);
  if (!applied.ok) {
    sink.errorAt(applied.error, configPath, 1);
    return null;
  }
  const included = await expandIncludes(applied.value, loaded.positions, context.files, limits, sink, locator, includeRulesEvaluator(context, limits, variables), variables, componentPrefixes(context.server), includes);
  if (sink.hasErrors) return null;
  const extended = expandExtends(included, limits.maxExtendsDepth, sink);
  if (sink.hasErrors) return null;
  const referenced = resolveReferences(extended, limits.maxReferenceDepth, sink);
  return sink.hasErrors ? null : referenced;
}

/**
 * `include:rules` see the pipeline's predefined variables and the project's and pipeline's own,
 * not the configuration's (GitLab evaluates them before the file is read whole).
 */
function valueOf(lookup: (name: string) => string | undefined, name: string): { value: string } | undefined {
  const value = lookup(name);
  return value === undefined ? undefined : { value };
}

function includeRulesEvaluator(context: CompileContext, limits: CompileLimits, variables: IncludeVariables): IncludeRulesEvaluator {
  const conditions = new ConditionContext(context, limits.maxExpressionTokens);
  const lookup = (name: string): string | undefined => variables.lookup(name)?.value;
  return async (rules) => {
    for (const rule of rules) {
      if (rule.if !== undefined && !conditions.expressionTrue(rule.if, lookup)) continue;
      if (rule.exists && !(await conditions.existsMatch(rule.exists, lookup))) continue;
      if (rule.changes && !(await conditions.changesClauseMatch(rule.changes, lookup))) continue;
      return rule.when !== 'never';
    }
    return false;
  };
}

function readJobs(root: RootConfig, sink: DiagnosticSink, limits: CompileLimits, nonTextNames: Set<string>): JobConfig[] {
  const jobs: JobConfig[] = [];
  if (root.jobs.length > limits.maxJobs) {
    sink.error(`Pipeline has too many jobs! Requested ${root.jobs.length}, but the limit is ${limits.maxJobs}.`, []);
    return jobs;
  }
  for (const { name, value } of root.jobs) {
    // GitLab's job name must be a symbol: a key YAML typed as a number or a boolean is none.
    if (nonTextNames.has(name)) {
      sink.error(`jobs:${name} name should be a symbol`, [name]);
      continue;
    }
    const job = readJobEntry(
      { name, value, defaults: root.defaults, globalVariables: root.globalVariables, maxExpressionTokens: limits.maxExpressionTokens },
      sink,
    );
    if (job) jobs.push(job);
  }
  return jobs;
}

function toDefinition(job: ExpandedJob, outcome: Awaited<ReturnType<typeof evaluateJob>>, stages: string[]): JobDefinition {
  const { config } = job;
  const base: Omit<JobDefinition, 'trigger'> = {
    name: config.name,
    baseName: job.baseName,
    stage: config.stage,
    stageIndex: stages.indexOf(config.stage),
    when: outcome.when,
    startIn: outcome.when === 'delayed' ? outcome.startIn : null,
    allowFailure: outcome.allowFailure,
    allowFailureExitCodes: outcome.allowFailureExitCodes,
    needs: outcome.needs,
    ...(config.crossPipelineNeeds ? { crossPipelineNeeds: config.crossPipelineNeeds } : {}),
    dependencies: config.dependencies,
    retry: config.retry,
    timeout: config.timeout,
    interruptible: outcome.interruptible ?? false,
    ...(config.hooks ? { hooks: config.hooks } : {}),
    ...(config.idTokens ? { idTokens: config.idTokens } : {}),
    ...(config.release ? { release: config.release } : {}),
    resourceGroup: config.resourceGroup,
    tags: config.tags,
    image: config.image,
    services: config.services,
    beforeScript: config.beforeScript,
    script: config.script,
    afterScript: config.afterScript,
    variables: outcome.variables,
    cache: config.cache.map((cache) => ({ ...cache, key: typeof cache.key === 'string' ? cache.key : 'default' })),
    artifacts: config.artifacts,
    environment: config.environment,
    coverage: config.coverage,
    parallel: job.parallel,
    inclusion: outcome.inclusion,
  };
  return config.trigger === null ? { ...base, trigger: null } : { ...base, trigger: config.trigger };
}

/** GitLab's `ci_needs_size_limit` default: how many jobs one job may need. */
const MAX_NEEDS = 50;

/**
 * A need on a job the pipeline does not have is an error, unless `optional` (then dropped);
 * so are more than 50 needs (GitLab's seed checks both when it builds the pipeline).
 */
function checkNeedsPresent(jobs: JobDefinition[], sink: DiagnosticSink): void {
  const present = new Set(jobs.map((job) => job.name));
  for (const job of jobs) {
    if (job.dependencies) job.dependencies = job.dependencies.filter((name) => present.has(name));
    if (!job.needs) continue;
    if (job.needs.length > MAX_NEEDS) {
      const listed = job.needs.length;
      sink.error(`${job.name}: one job can only need ${MAX_NEEDS} others, but you have listed ${listed}. See needs keyword documentation for more details`, [job.baseName, 'needs']);
      continue;
    }
    for (const need of job.needs) {
      if (present.has(need.job) || need.optional) continue;
      sink.error(
        `'${job.name}' job needs '${need.job}' job, but '${need.job}' does not exist in the pipeline. ` +
          'This might be because of the only, except, or rules keywords. ' +
          'To need a job that sometimes does not exist in the pipeline, use needs:optional.',
        [job.baseName, 'needs'],
      );
    }
    job.needs = job.needs.filter((need) => present.has(need.job));
  }
}

function orderByStage(jobs: JobDefinition[], stages: string[]): JobDefinition[] {
  return stages.flatMap((stage) => jobs.filter((job) => job.stage === stage));
}

/** A compile that failed as a whole (the sandbox's limits): one configuration error. */
export function failedCompile(message: string): CompileResult {
  const sink = new DiagnosticSink(new SourceLocator());
  sink.error(message, []);
  return invalid(sink);
}

function invalid(sink: DiagnosticSink, declaredStages: string[] = []): CompileResult {
  return {
    status: 'invalid',
    stages: [],
    declaredStages,
    jobs: [],
    excludedJobs: [],
    errors: sink.errors,
    warnings: sink.warnings,
    reason: null,
    workflowVariables: [],
  };
}

function emptyResult(
  status: 'skipped' | 'filtered',
  declaredStages: string[],
  sink: DiagnosticSink,
  reason: string,
  workflowVariables: YamlVariable[],
): CompileResult {
  return { status, stages: [], declaredStages, jobs: [], excludedJobs: [], errors: [], warnings: sink.warnings, reason, workflowVariables };
}
