/**
 * GIT_CLONE_PATH as gitlab-runner's `custom_build_dir` reads it: allowed when the runner's
 * `[runners.custom_build_dir] enabled` is (on by default for docker, off for shell), and only
 * inside the builds directory. A refusal fails the job while its environment is prepared.
 */
import path from 'node:path';
import { ExecutorError, type PrepareRequest } from './types.ts';

export function projectDirFor(request: PrepareRequest, buildsDir: string, fallback: string, enabledByDefault: boolean): string {
  const custom = request.clonePath?.(buildsDir) ?? null;
  if (custom === null || custom === '') return fallback;
  if (!(request.customBuildDir ?? enabledByDefault)) throw new ExecutorError('setting GIT_CLONE_PATH is not allowed, enable `custom_build_dir` feature', 'config');
  const relative = path.posix.relative(buildsDir, path.posix.resolve(buildsDir, custom));
  if (relative.startsWith('..') || path.posix.isAbsolute(relative)) throw new ExecutorError(`the GIT_CLONE_PATH=${JSON.stringify(custom)} has to be within ${JSON.stringify(buildsDir)}`, 'config');
  return path.posix.join(buildsDir, relative);
}
