/**
 * The one job engine: runs a job payload through the stages of reference §8.1 on any
 * executor, writes the trace GitLab users expect, and reports the outcome through the
 * JobSession. Cancel, timeout and runner shutdown all abort the stages' signal; what stopped
 * the job decides the failure reason. A graceful cancel (`Job-Status: canceling`) stops the
 * job's script, then still runs after_script (CI_JOB_STATUS=canceled), as gitlab-runner 16+.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ExecutorError, type Environment, type EnvironmentInfo, type Executor } from '../../executors/types.ts';
import type { JobPayload } from '../../protocol/job-payload.ts';
import { ArtifactPrefetch, artifactsToUpload, uploadArtifacts } from './artifacts.ts';
import { archive as loadArchiveCode } from './archive/lazy.ts';
import { archiveCache, cacheEntries, cachesToArchive, restoreCache } from './cache.ts';
import type { JobContext, JobSettings } from './context.ts';
import { goDuration, projectPathOf, type RunnerIdentity } from './identity.ts';
import { isFeatureFlagOn } from './feature-flags.ts';
import { goBool } from './go-values.ts';
import { prepareSources, recyclableSources } from './prepare-sources.ts';
import { serverTls, type ServerTls } from './server-tls.ts';
import { executorSectionAttempts, stageAttempts } from './attempts.ts';
import { afterScript, cleanupFileVariablesScript, userStageScript } from './script.ts';
import { JobFailure } from './failure.ts';
import { runScript, scriptContext } from './run-script.ts';
import { stageTimeouts } from './stage-timeouts.ts';
import type { JobOutcome, JobSession } from './session.ts';
import { JobTrace } from './trace.ts';
import { buildVariables, expandServiceVariables, expandValue, maskedValues, serviceVariables, variableValue, type BuildVariable } from './variables.ts';
import { timelineMark } from '../timeline.ts';
import { removeTree } from '../../shared/remove-tree.ts';

export interface RunJobOptions {
  payload: JobPayload;
  executor: Executor;
  session: JobSession;
  runner: RunnerIdentity;
  settings: JobSettings;
  concurrentId?: number;
  concurrentProjectId?: number;
  /** Runner shutdown: aborting fails the job with runner_system_failure. */
  signal?: AbortSignal;
  now?: () => Date;
  /** Told how long each stage (trace section) took. */
  onStage?: (stage: string, seconds: number) => void;
  /**
   * Takes the executor's clean-up instead of awaiting it: the job reports first, and the
   * runner may take its next job while containers are removed.
   */
  onCleanup?: (cleanup: Promise<void>) => void;
  /** Called when the job failed, before its environment is cleaned up (and before it is reported): the clean-up waits for it. */
  beforeFailedCleanup?: BeforeFailedCleanup;
}

/** What the stages take besides the job's context: the caller's options, the runner's TLS files read. */
interface EngineOptions extends RunJobOptions {
  tls: ServerTls;
}

/** A failed job whose environment still exists: its build directory, its variables. */
export interface FailedJob {
  payload: JobPayload;
  environment: Environment;
  variables: readonly BuildVariable[];
  failureReason: JobOutcome['failureReason'];
}

export type BeforeFailedCleanup = (failed: FailedJob) => Promise<void>;

type StopReason = 'canceled' | 'cancel-requested' | 'timeout' | 'aborted';
/** CI_JOB_STATUS in after_script (`timedout` after RUNNER_SCRIPT_TIMEOUT, as gitlab-runner's state). */
type AfterScriptStatus = 'success' | 'failed' | 'canceled' | 'timedout';

/** What stopped the job so far, and the signal only a hard stop aborts (after_script's during a graceful cancel). */
interface Stops {
  reason(): StopReason | null;
  readonly hard: AbortSignal;
  /** When the job's timeout ends it (epoch milliseconds). */
  readonly deadline: number;
}

const DEFAULT_TIMEOUT_SECONDS = 7200;

/** The job's timeout: the payload's, or gitlab-runner's default of two hours when it sends none. */
function jobTimeoutSeconds(payload: JobPayload): number {
  return payload.runner_info.timeout > 0 ? payload.runner_info.timeout : DEFAULT_TIMEOUT_SECONDS;
}

export async function runJob(options: RunJobOptions): Promise<JobOutcome> {
  const { payload, session, runner, settings } = options;
  const projectPath = projectPathOf(payload.git_info.repo_url, payload.job_info.project_id);
  const trace = new JobTrace({
    sink: (bytes) => session.appendTrace(bytes),
    maskedValues: maskedValues(buildVariables(payload.variables, placeholderContext(runner, payload))),
    tokenPrefixes: payload.features?.token_mask_prefixes,
    limitBytes: settings.outputLimit,
    sections: payload.features?.trace_sections === true,
    now: options.now,
    onSection: (stage, seconds) => {
      timelineMark(`job ${payload.job_info.name}: ${stage} done`);
      options.onStage?.(stage, seconds);
    },
    timestamps: isFeatureFlagOn('FF_TIMESTAMPS', payload.variables, settings),
  });
  const timeoutSeconds = jobTimeoutSeconds(payload);
  const controller = new AbortController();
  const hard = new AbortController();
  let stopReason: StopReason | null = null;
  const stop = (reason: StopReason): void => {
    if (reason !== 'cancel-requested') hard.abort(reason);
    // A hard stop during a graceful cancel's after_script wins (its reason is reported).
    if (stopReason && !(stopReason === 'cancel-requested' && reason !== 'cancel-requested')) return;
    stopReason = reason;
    controller.abort(reason);
  };
  const onCancel = (): void => stop('canceled');
  const onCancelRequest = (): void => stop('cancel-requested');
  const onShutdown = (): void => stop('aborted');
  session.canceled.addEventListener('abort', onCancel);
  session.cancelRequested?.addEventListener('abort', onCancelRequest);
  options.signal?.addEventListener('abort', onShutdown);
  if (session.canceled.aborted) stop('canceled');
  if (session.cancelRequested?.aborted) stop('cancel-requested');
  if (options.signal?.aborted) stop('aborted');
  const timer = setTimeout(() => stop('timeout'), timeoutSeconds * 1000);
  const stops: Stops = { reason: () => stopReason, hard: hard.signal, deadline: Date.now() + timeoutSeconds * 1000 };

  trace.println(`Running with ${runner.productName} ${runner.version} (${runner.revision})`);
  trace.println(`  on ${runner.name} ${runner.shortToken}`);

  let environment: Environment | null = null;
  let variables: BuildVariable[] = [];
  const workDir = await mkdtemp(path.join(os.tmpdir(), `gantry-job-${payload.id}-`));
  let outcome: JobOutcome;
  const stopped = (): JobFailure | null => {
    if (stopReason === 'canceled' || stopReason === 'cancel-requested') return new JobFailure('canceled', 'job_canceled');
    if (stopReason === 'timeout') return new JobFailure(`execution took longer than ${goDuration(timeoutSeconds)} seconds`, 'job_execution_timeout');
    if (stopReason === 'aborted') return new JobFailure(`aborted: ${String(options.signal?.reason ?? 'shutdown')}`, 'runner_system_failure');
    return null;
  };
  try {
    const engine: EngineOptions = { ...options, tls: await serverTls(settings) };
    environment = await prepareStage(engine, trace, controller.signal, projectPath, stopped);
    const context: JobContext = {
      payload,
      environment,
      session,
      trace,
      settings,
      variables: jobVariables(engine, environment.info, 'running'),
      projectPath,
      sourcesDir: environment.info.hostProjectDir ?? path.join(settings.copiedSourcesRoot ?? path.join(settings.buildsDir, runner.shortToken), String(options.concurrentProjectId ?? 0), ...projectPath.split('/')),
      workDir,
      signal: controller.signal,
    };
    variables = context.variables;
    trace.setMaskedValues(maskedValues(context.variables));
    outcome = await runStages(context, engine, stopped, stops);
  } catch (error) {
    const failure = stopped() ?? (error instanceof JobFailure ? error : new JobFailure(error instanceof Error ? error.message : String(error), 'runner_system_failure'));
    outcome = { state: 'failed', failureReason: failure.reason, ...(failure.exitCode ? { exitCode: failure.exitCode } : {}) };
    trace.error(`Job failed${failure.reason === 'runner_system_failure' ? ' (system failure)' : ''}: ${failure.message}`);
  } finally {
    clearTimeout(timer);
    session.canceled.removeEventListener('abort', onCancel);
    session.cancelRequested?.removeEventListener('abort', onCancelRequest);
    options.signal?.removeEventListener('abort', onShutdown);
  }
  trace.close();
  if (outcome.state === 'failed' && environment && options.beforeFailedCleanup) {
    await options.beforeFailedCleanup({ payload, environment, variables, failureReason: outcome.failureReason }).catch(() => undefined);
  }
  const cleanup = (async (): Promise<void> => {
    await environment?.cleanup().catch(() => undefined);
    await removeTree(workDir).catch(() => undefined);
  })();
  timelineMark(`job ${payload.job_info.name}: script done`);
  if (options.onCleanup) {
    options.onCleanup(cleanup);
    await session.finish(outcome);
    timelineMark(`job ${payload.job_info.name}: finish accepted`);
  } else {
    await Promise.all([session.finish(outcome), cleanup]);
  }
  return outcome;
}

async function section<T>(trace: JobTrace, name: string, title: string, body: () => Promise<T>): Promise<T> {
  trace.sectionStart(name, title);
  try {
    return await body();
  } finally {
    trace.sectionEnd(name);
  }
}

async function prepareStage(options: EngineOptions, trace: JobTrace, signal: AbortSignal, projectPath: string, stopped: () => JobFailure | null): Promise<Environment> {
  const { payload, executor, settings, runner } = options;
  return section(trace, 'prepare_executor', `Preparing the "${executor.name}" executor`, async () => {
    const variables = buildVariables(payload.variables, placeholderContext(runner, payload));
    const sectionAttempts = executorSectionAttempts(variableValue(variables, 'EXECUTOR_JOB_SECTION_ATTEMPTS'), (line) => trace.warning(line));
    // The job's variables once the executor knows its directories: the runner's `environment` and concurrency ids in them too.
    const variablesAt = (dirs: { buildsDir: string; projectDir?: string }): BuildVariable[] =>
      buildVariables(payload.variables, { ...placeholderContext(runner, payload), ...dirs, environment: settings.environment, concurrentId: options.concurrentId ?? 0, concurrentProjectId: options.concurrentProjectId ?? 0 });
    for (let attempt = 1; ; attempt++) {
      try {
        return await executor.prepare({
          jobId: payload.id,
          projectId: payload.job_info.project_id,
          projectPath,
          shortToken: runner.shortToken,
          concurrentId: options.concurrentId ?? 0,
          concurrentProjectId: options.concurrentProjectId ?? 0,
          image: payload.image,
          services: payload.services.map((service) => (service.variables ? { ...service, variables: expandServiceVariables(service.variables, variables) } : service)),
          serviceVariables: serviceVariables(variables),
          containerVariables: (info) => jobVariables(options, info, 'running').filter((variable) => !variable.file).map((variable) => `${variable.key}=${variable.value}`),
          // Go's ParseBool, as gitlab-runner reads it; debug_trace_disabled turns it off as it does CI_DEBUG_TRACE.
          debugServices: goBool(variableValue(variables, 'CI_DEBUG_SERVICES')) === true && !settings.debugTraceDisabled,
          credentials: payload.credentials.filter((credential) => credential.type === 'registry'),
          log: (line, level) => (level === 'warning' ? trace.warning(line) : level === 'error' ? trace.error(line) : trace.println(line)),
          sectionAttempts,
          signal,
          // GIT_CLONE_PATH (the runner's `environment` too), with CI_BUILDS_DIR the environment's.
          clonePath: (buildsDir) => variableValue(variablesAt({ buildsDir }), 'GIT_CLONE_PATH') || null,
          customBuildDir: settings.customBuildDir,
          expand: (value, dirs) => expandValue(value, variablesAt(dirs)),
          recyclableSources: recyclableSources(variables, payload.allow_git_fetch),
        });
      } catch (error) {
        const stop = stopped();
        if (stop) throw stop;
        const message = error instanceof Error ? error.message : String(error);
        if (error instanceof ExecutorError && error.kind !== 'system') throw new JobFailure(message, 'script_failure');
        if (attempt >= settings.prepareAttempts) throw new JobFailure(message, 'runner_system_failure');
        trace.error(`Preparation failed: ${message}`);
        trace.println(`Will be retried in ${goDuration(settings.prepareRetryDelayMs / 1000)} ...`);
        await new Promise((resolve) => setTimeout(resolve, settings.prepareRetryDelayMs));
      }
    }
  });
}

async function runStages(context: JobContext, options: EngineOptions, stopped: () => JobFailure | null, stops: Stops): Promise<JobOutcome> {
  const { trace, environment, payload, settings } = context;
  const checkStop = (): void => {
    const stop = stopped();
    if (stop) throw stop;
  };
  // The first user script's container starts while the sources are fetched and copied in.
  environment.prestart?.(settings.shell);
  await section(trace, 'prepare_script', 'Preparing environment', async () => trace.write(`Running on ${environment.info.runningOn}...\n`));
  checkStop();
  // The dependencies' archives download while the sources are fetched (and the cache restored),
  // and the archive code a job with artifacts or caches needs loads meanwhile (once a process).
  const artifacts = new ArtifactPrefetch(context);
  if (artifacts.size > 0 || payload.artifacts.length > 0 || cacheEntries(context).length > 0) loadArchiveCode().catch(() => undefined);
  // A failure before the script (sources, cache, dependencies) skips the script and after_script,
  // but the failed job's caches and artifacts are saved and its files cleaned up all the same, as
  // gitlab-runner's executeScript goes on to them.
  let scriptFailure = await beforeScript(context, options, artifacts, checkStop);
  scriptFailure ??= await userScripts(context, options, checkStop, stops);
  const succeeded = scriptFailure === null;
  checkStop();
  let jobFailure: JobFailure | null = scriptFailure;
  if (cachesToArchive(context, succeeded).length > 0) {
    await section(trace, succeeded ? 'archive_cache' : 'archive_cache_on_failure', `Saving cache for ${succeeded ? 'successful' : 'failed'} job`, () => archiveCache(context, succeeded));
  }
  checkStop();
  if (artifactsToUpload(context, succeeded).length > 0) {
    const error = await section(trace, `upload_artifacts_on_${succeeded ? 'success' : 'failure'}`, `Uploading artifacts for ${succeeded ? 'successful' : 'failed'} job`, () => uploadArtifacts(context, succeeded));
    if (error) jobFailure ??= new JobFailure(error, 'script_failure', 1);
  }
  checkStop();
  await section(trace, 'cleanup_file_variables', 'Cleaning up file based variables', async () => {
    if (environment.info.shared && context.variables.some((variable) => variable.file)) {
      await runScript(context, 'cleanup_file_variables', cleanupFileVariablesScript(scriptContext(context)), context.signal);
    }
  });
  if (jobFailure) throw jobFailure;
  trace.info('Job succeeded');
  return { state: 'success' };
}

/** get_sources, restore_cache and download_artifacts; a failure of theirs (not a stop) is returned. */
async function beforeScript(context: JobContext, options: EngineOptions, artifacts: ArtifactPrefetch, checkStop: () => void): Promise<JobFailure | null> {
  const { trace, variables } = context;
  let downloadAttempts: number;
  try {
    await section(trace, 'get_sources', 'Getting source from Git repository', () => prepareSources(context, options.runner));
    checkStop();
    // A cache that cannot be restored is a warning, never the stage's failure: its attempts
    // (RESTORE_CACHE_ATTEMPTS) never run it again, but their range is checked all the same.
    stageAttempts(variableValue(variables, 'RESTORE_CACHE_ATTEMPTS'), 'restore_cache');
    if (cacheEntries(context).length > 0) await section(trace, 'restore_cache', 'Restoring cache', () => restoreCache(context));
    checkStop();
    downloadAttempts = stageAttempts(variableValue(variables, 'ARTIFACT_DOWNLOAD_ATTEMPTS'), 'download_artifacts');
  } catch (error) {
    artifacts.abandon();
    if (error instanceof JobFailure && !context.signal.aborted) return error;
    throw error;
  }
  if (artifacts.size > 0) {
    const failure = await section(trace, 'download_artifacts', 'Downloading artifacts', () => artifacts.extract(downloadAttempts));
    if (failure) return new JobFailure(failure.message, failure.reason);
  }
  checkStop();
  return null;
}

/**
 * The script's steps, within RUNNER_SCRIPT_TIMEOUT when set, then after_script (with
 * AFTER_SCRIPT_IGNORE_ERRORS false, its failure fails a job that had not failed).
 */
async function userScripts(context: JobContext, options: EngineOptions, checkStop: () => void, stops: Stops): Promise<JobFailure | null> {
  const { trace, payload, settings, variables } = context;
  const timeouts = stageTimeouts(
    { script: variableValue(variables, 'RUNNER_SCRIPT_TIMEOUT'), afterScript: variableValue(variables, 'RUNNER_AFTER_SCRIPT_TIMEOUT') },
    { afterScriptMs: settings.afterScriptTimeout * 1000 },
    stops.deadline - Date.now(),
    trace,
  );
  let scriptFailure: JobFailure | null = null;
  const after = payload.steps.find((step) => step.name === 'after_script');
  const runAfter = async (status: AfterScriptStatus, signal: AbortSignal): Promise<JobFailure | null> => {
    if (!after || after.script.length === 0) return null;
    return section(trace, 'after_script', 'Running after_script', () => runAfterScript(context, options, after.script, status, signal, timeouts.afterScriptMs));
  };
  const script = new AbortController();
  const onJobStop = (): void => script.abort();
  context.signal.addEventListener('abort', onJobStop);
  let timedOut = false;
  const timer = timeouts.scriptMs === null ? null : setTimeout(() => {
    timedOut = true;
    script.abort();
  }, timeouts.scriptMs);
  try {
    for (const step of payload.steps.filter((candidate) => candidate.name !== 'after_script')) {
      const name = `step_${step.name}`;
      const exitCode = await section(trace, name, `Executing "${name}" stage of the job script`, () =>
        runScript(context, name, userStageScript(scriptContext(context), step.script, { preBuild: settings.preBuildScript, postBuild: settings.postBuildScript }), script.signal),
      );
      checkStop();
      if (timedOut) scriptFailure = new JobFailure('script timeout: context deadline exceeded', 'job_execution_timeout');
      else if (exitCode !== 0) scriptFailure = new JobFailure(`exit status ${exitCode}`, 'script_failure', exitCode);
      if (scriptFailure) break;
    }
  } catch (error) {
    // A graceful cancel stopped the script: after_script runs all the same, then the job ends canceled.
    if (stops.reason() === 'cancel-requested') await runAfter('canceled', stops.hard);
    throw error;
  } finally {
    if (timer) clearTimeout(timer);
    context.signal.removeEventListener('abort', onJobStop);
  }
  const afterFailure = await runAfter(timedOut ? 'timedout' : scriptFailure === null ? 'success' : 'failed', context.signal);
  return scriptFailure ?? afterFailure;
}

/**
 * after_script with CI_JOB_STATUS `status`; `stopSignal` stops it (the stages' signal, or only a
 * hard stop during a graceful cancel). Its failure is a warning, or with AFTER_SCRIPT_IGNORE_ERRORS
 * false (gitlab-runner 17.x) the failure returned.
 */
async function runAfterScript(context: JobContext, options: EngineOptions, commands: string[], status: AfterScriptStatus, stopSignal: AbortSignal, timeoutMs: number): Promise<JobFailure | null> {
  const { trace } = context;
  const variables = jobVariables(options, context.environment.info, status);
  const ignoreErrors = goBool(variableValue(context.variables, 'AFTER_SCRIPT_IGNORE_ERRORS')) ?? true;
  const controller = new AbortController();
  const onStop = (): void => controller.abort();
  if (stopSignal.aborted) return null;
  stopSignal.addEventListener('abort', onStop);
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const exitCode = await runScript(context, 'after_script', afterScript(scriptContext(context, variables), commands), controller.signal);
    let failure: JobFailure | null = null;
    if (controller.signal.aborted && !stopSignal.aborted) {
      failure = new JobFailure(`execution took longer than ${goDuration(timeoutMs / 1000)} seconds`, 'script_failure');
    } else if (exitCode !== 0) {
      failure = new JobFailure(`exit status ${exitCode}`, 'script_failure', exitCode);
    }
    if (failure && ignoreErrors) trace.warning(`after_script failed, but job will continue unaffected: ${failure.message}`);
    return ignoreErrors ? null : failure;
  } finally {
    clearTimeout(timer);
    stopSignal.removeEventListener('abort', onStop);
  }
}

function jobVariables(options: EngineOptions, info: EnvironmentInfo, jobStatus: 'running' | AfterScriptStatus): BuildVariable[] {
  const { runner, settings } = options;
  return buildVariables(options.payload.variables, {
    // gitlab-runner exports the job's image whatever the executor: a shell job with `image:` sees it too.
    image: info.image ?? options.payload.image?.name ?? null,
    shortToken: runner.shortToken,
    environment: settings.environment,
    buildsDir: info.buildsDir,
    projectDir: info.projectDir,
    concurrentId: options.concurrentId ?? 0,
    concurrentProjectId: options.concurrentProjectId ?? 0,
    jobStatus,
    jobTimeout: jobTimeoutSeconds(options.payload),
    tls: options.tls,
    featureFlags: settings.featureFlags,
    shared: info.shared,
    version: runner.version,
    revision: runner.revision,
    arch: runner.arch,
  });
}

/** Before an environment exists: enough to know the masked values. */
function placeholderContext(runner: RunnerIdentity, payload: JobPayload): Parameters<typeof buildVariables>[1] {
  return { image: null, shortToken: runner.shortToken, environment: [], buildsDir: '', projectDir: '', concurrentId: 0, concurrentProjectId: 0, jobStatus: 'running', jobTimeout: jobTimeoutSeconds(payload), shared: false, version: runner.version, revision: runner.revision, arch: runner.arch };
}
