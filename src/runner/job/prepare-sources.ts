/**
 * The get_sources stage: pre_get_sources_script in the environment, git on this machine,
 * then (when scripts do not run on this machine) the checkout copied into the environment.
 */
import tar from 'tar-stream';
import type { Readable } from 'node:stream';
import { packDirectory } from '../../executors/tar.ts';
import type { JobContext } from './context.ts';
import { JobFailure } from './failure.ts';
import { runScript, scriptContext } from './run-script.ts';
import type { RunnerIdentity } from './identity.ts';
import { userStageScript } from './script.ts';
import { getSources, gitStrategy, remoteUrl, SourcesError, submoduleStrategy } from './sources.ts';
import { variableValue } from './variables.ts';

function emptyTar(): Readable {
  const pack = tar.pack();
  pack.finalize();
  return pack as unknown as Readable;
}

export async function prepareSources(context: JobContext, runner: RunnerIdentity): Promise<void> {
  const { payload, settings, environment, variables } = context;
  if (settings.preGetSourcesScript?.trim()) {
    const code = await runScript(context, 'pre_get_sources_script', userStageScript(scriptContext(context), [settings.preGetSourcesScript]), context.signal);
    if (code !== 0) throw new JobFailure(`exit status ${code}`, 'script_failure', code);
  }
  const strategy = gitStrategy(variableValue(variables, 'GIT_STRATEGY'), payload.allow_git_fetch);
  const copies = environment.info.hostProjectDir === null;
  if (strategy === 'none' && copies) {
    context.trace.notice('Skipping Git repository setup');
    await environment.copyIn(emptyTar(), environment.info.projectDir);
    return;
  }
  try {
    await getSources({
      git: payload.git_info,
      strategy,
      checkout: variableValue(variables, 'GIT_CHECKOUT') !== 'false',
      cleanFlags: variableValue(variables, 'GIT_CLEAN_FLAGS') || '-ffdx',
      fetchFlags: variableValue(variables, 'GIT_FETCH_EXTRA_FLAGS') || '--prune --quiet',
      submodules: submoduleStrategy(variableValue(variables, 'GIT_SUBMODULE_STRATEGY')),
      remoteUrl: remoteUrl(payload.git_info.repo_url, settings.cloneUrl, variableValue(variables, 'CI_PROJECT_PATH') ?? context.projectPath, payload.token),
      directory: context.sourcesDir,
      displayDirectory: environment.info.projectDir,
      userAgent: runner.userAgent,
      trace: context.trace,
      signal: context.signal,
    });
  } catch (error) {
    if (error instanceof SourcesError) throw new JobFailure(error.message, 'script_failure', error.exitCode);
    throw error;
  } finally {
    context.trace.flush();
  }
  if (copies) await environment.copyIn(packDirectory(context.sourcesDir), environment.info.projectDir);
}
