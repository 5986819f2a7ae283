/**
 * The get_sources stage: pre_get_sources_script in the environment (the runner's, then the
 * job's `hooks:pre_get_sources_script`, as gitlab-runner joins them), git on this machine, then
 * (when scripts do not run on this machine) the checkout copied into the environment, then a
 * `post_get_sources_script` hook when the payload has one.
 */
import path from 'node:path';
import tar from 'tar-stream';
import type { Readable } from 'node:stream';
import { packDirectory } from '../../executors/tar.ts';
import type { JobPayload } from '../../protocol/job-payload.ts';
import type { JobContext } from './context.ts';
import { JobFailure } from './failure.ts';
import { runScript, scriptContext } from './run-script.ts';
import type { RunnerIdentity } from './identity.ts';
import { sourcesHookScript } from './script.ts';
import { clearWorktree, EMPTY_NOTICE, getSources, gitStrategy, remoteUrl, SourcesError, submoduleDepth, submodulePaths, submoduleStrategy, type SubmoduleStrategy } from './sources.ts';
import { isFeatureFlagOn } from './feature-flags.ts';
import { goBool } from './go-values.ts';
import { stageAttempts } from './attempts.ts';
import { submoduleInsteadOf } from './submodule-urls.ts';
import { gitTlsEnvironment } from './server-tls.ts';
import { variableValue, type BuildVariable } from './variables.ts';

/** An archive of one empty directory, its root, with that mode. */
function emptyDirectoryTar(mode: number): Readable {
  const pack = tar.pack();
  pack.entry({ name: './', type: 'directory', mode });
  pack.finalize();
  return pack as unknown as Readable;
}

export async function prepareSources(context: JobContext, runner: RunnerIdentity): Promise<void> {
  const { payload, settings, environment, variables } = context;
  const strategy = gitStrategy(variableValue(variables, 'GIT_STRATEGY'), payload.allow_git_fetch);
  const copies = environment.info.hostProjectDir === null;
  // gitlab-runner's helper works under `umask 0000` (unless FF_DISABLE_UMASK_FOR_DOCKER_EXECUTOR):
  // what git makes writable by its owner is writable by all (666, 777), so an image's own
  // non-root user can write there too. Read-only files (git's objects) stay read-only.
  const umaskZero = !isFeatureFlagOn('FF_DISABLE_UMASK_FOR_DOCKER_EXECUTOR', variables, settings);
  const attempts = getSourcesAttempts(variableValue(variables, 'GET_SOURCES_ATTEMPTS'));
  if (strategy === 'none' || strategy === 'empty') {
    // No repository: gitlab-runner runs neither get-sources hook then.
    if (!copies) return fetchSources(context, sourcesRequest(context, runner, strategy, 'none'));
    // The environment's project directory is new (a disposable one): nothing to empty. gitlab-runner
    // makes it with `mkdir -p` under that umask.
    context.trace.notice(strategy === 'none' ? 'Skipping Git repository setup' : EMPTY_NOTICE);
    await environment.copyIn(emptyDirectoryTar(umaskZero ? 0o777 : 0o755), environment.info.projectDir);
    return;
  }
  // gitlab-runner refuses these while writing the stage's script: nothing of the stage runs.
  const submodules = submoduleStrategy(variableValue(variables, 'GIT_SUBMODULE_STRATEGY'));
  if (submodules === null) throw new JobFailure('unknown GIT_SUBMODULE_STRATEGY', 'runner_system_failure');
  let request: ReturnType<typeof sourcesRequest>;
  try {
    request = sourcesRequest(context, runner, strategy, submodules);
  } catch (error) {
    throw error instanceof SourcesError ? new JobFailure(error.message, 'runner_system_failure') : error;
  }
  const pre = [...(settings.preGetSourcesScript?.trim() ? [settings.preGetSourcesScript] : []), ...hookScript(payload.hooks, 'pre_get_sources_script')];
  await runHook(context, 'pre_get_sources_script', pre);
  for (let attempt = 1; ; attempt++) {
    try {
      await fetchSources(context, request);
      break;
    } catch (error) {
      if (!(error instanceof SourcesError) || attempt >= attempts || context.signal.aborted) {
        throw error instanceof SourcesError ? new JobFailure(error.message, 'script_failure', error.exitCode) : error;
      }
      context.trace.warning(`Getting the sources failed (${error.message}): attempt ${attempt + 1} of ${attempts} (GET_SOURCES_ATTEMPTS)`);
      if (attempt === 1) await clearWorktree(context.sourcesDir, context.trace, context.signal);
    }
  }
  if (copies) await environment.copyIn(packDirectory(context.sourcesDir, { withRoot: true, ...(umaskZero ? { adjustMode: writableByAll } : {}) }), environment.info.projectDir);
  // gitlab-runner's order: the job's hook, then the runner's `post_get_sources_script`.
  const post = [...hookScript(payload.hooks, 'post_get_sources_script'), ...(settings.postGetSourcesScript?.trim() ? [settings.postGetSourcesScript] : [])];
  await runHook(context, 'post_get_sources_script', post);
}

function hookScript(hooks: JobPayload['hooks'], name: string): string[] {
  return hooks?.find((hook) => hook.name === name)?.script ?? [];
}

/** The hook's commands as one script in the environment; a failure fails the job, as a script's does. */
async function runHook(context: JobContext, name: string, lines: string[]): Promise<void> {
  if (lines.length === 0) return;
  const code = await runScript(context, name, sourcesHookScript(scriptContext(context), lines), context.signal);
  if (code !== 0) throw new JobFailure(`exit status ${code}`, 'script_failure', code);
}

function writableByAll(mode: number): number {
  return mode & 0o200 ? mode | 0o022 : mode;
}

/** gitlab-runner's `GET_SOURCES_ATTEMPTS` (see stageAttempts). */
/** The job fetches and checks out its sources, without submodules (PrepareRequest.recyclableSources). */
export function recyclableSources(variables: BuildVariable[], allowGitFetch: boolean): boolean {
  return gitStrategy(variableValue(variables, 'GIT_STRATEGY'), allowGitFetch) === 'fetch' && checksOut(variables) && submoduleStrategy(variableValue(variables, 'GIT_SUBMODULE_STRATEGY')) === 'none';
}

// Go's ParseBool, as gitlab-runner reads it: `0`, `f`, `FALSE`... skip; anything else checks out.
const checksOut = (variables: BuildVariable[]): boolean => goBool(variableValue(variables, 'GIT_CHECKOUT')) ?? true;

export function getSourcesAttempts(value: string | undefined): number {
  return stageAttempts(value, 'get_sources');
}

function sourcesRequest(context: JobContext, runner: RunnerIdentity, strategy: ReturnType<typeof gitStrategy>, submodules: SubmoduleStrategy): Parameters<typeof getSources>[0] {
  const { payload, settings, environment, variables } = context;
  const updateSubmodules = submodules !== 'none';
  return {
    git: payload.git_info,
    strategy,
    checkout: checksOut(variables),
    cleanFlags: variableValue(variables, 'GIT_CLEAN_FLAGS') || '-ffdx',
    fetchFlags: variableValue(variables, 'GIT_FETCH_EXTRA_FLAGS') || '--prune --quiet',
    submodules,
    submoduleDepth: updateSubmodules ? submoduleDepth(variableValue(variables, 'GIT_SUBMODULE_DEPTH'), payload.git_info.depth) : 0,
    submodulePaths: updateSubmodules ? submodulePaths(variableValue(variables, 'GIT_SUBMODULE_PATHS')) : [],
    submoduleUpdateFlags: (variableValue(variables, 'GIT_SUBMODULE_UPDATE_FLAGS') ?? '').split(/\s+/).filter(Boolean),
    submoduleInsteadOf: updateSubmodules
      ? submoduleInsteadOf({
          cloneUrl: settings.cloneUrl,
          serverUrl: variableValue(variables, 'CI_SERVER_URL'),
          jobToken: payload.token,
          forceHttps: goBool(variableValue(variables, 'GIT_SUBMODULE_FORCE_HTTPS')) ?? false,
          sshHost: variableValue(variables, 'CI_SERVER_SHELL_SSH_HOST') || variableValue(variables, 'CI_SERVER_HOST'),
          sshPort: variableValue(variables, 'CI_SERVER_SHELL_SSH_PORT'),
        })
      : [],
    remoteUrl: remoteUrl(payload.git_info.repo_url, settings.cloneUrl, variableValue(variables, 'CI_PROJECT_PATH') ?? context.projectPath, payload.token),
    directory: context.sourcesDir,
    recycled: environment.info.recycledCheckout === true,
    alternates: environment.info.hostProjectDir === null ? [] : (settings.sourcesAlternates ?? []),
    shortHistories: settings.sourcesShortHistories,
    alternateRefPrefixes: settings.sourcesAlternateRefPrefixes,
    templateDirectory: path.join(context.workDir, 'git-template'),
    displayDirectory: environment.info.projectDir,
    userAgent: runner.userAgent,
    gitEnvironment: gitTlsEnvironment(settings),
    trace: context.trace,
    signal: context.signal,
  };
}

async function fetchSources(context: JobContext, request: Parameters<typeof getSources>[0]): Promise<void> {
  try {
    await getSources(request);
  } finally {
    context.trace.flush();
  }
}
