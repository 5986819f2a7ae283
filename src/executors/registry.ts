/** Builds an executor by name (the names config.toml's `executor` key accepts). */
import { DeferredDockerExecutor } from './docker/deferred.ts';
import type { DockerSettings } from './docker/settings.ts';
import { FakeExecutor, type FakeExecutorOptions } from './fake/fake-executor.ts';
import { ShellExecutor } from './shell/shell-executor.ts';
import type { Executor, ExecutorName } from './types.ts';

export const EXECUTOR_NAMES: readonly ExecutorName[] = ['shell', 'docker', 'fake'];

export interface ExecutorSettings {
  /** Absolute builds directory of the shell executor. */
  buildsDir: string;
  docker: DockerSettings;
  fake?: FakeExecutorOptions;
}

export function isExecutorName(name: string): name is ExecutorName {
  return (EXECUTOR_NAMES as readonly string[]).includes(name);
}

export function createExecutor(name: string, settings: ExecutorSettings): Executor {
  switch (name) {
    case 'shell':
      return new ShellExecutor({ buildsDir: settings.buildsDir });
    case 'docker':
      return new DeferredDockerExecutor(settings.docker);
    case 'fake':
      return new FakeExecutor(settings.fake);
    default:
      throw new Error(`unknown executor "${name}" (known: ${EXECUTOR_NAMES.join(', ')})`);
  }
}
