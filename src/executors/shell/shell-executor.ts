/**
 * The shell executor: scripts run on this machine under
 * `<builds_dir>/<short token>/<concurrent project id>/<namespace>/<project>` (reference §8.4).
 * Builds are shared between jobs (a fetch reuses the previous checkout).
 */
import { mkdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { extractInto, packDirectory } from '../tar.ts';
import type { Environment, EnvironmentInfo, Executor, ExecutorFeatures, PrepareRequest, RunRequest, RunResult } from '../types.ts';
import { runShellScript } from './process.ts';

export interface ShellExecutorOptions {
  /** Absolute builds directory (gitlab-runner default: `$PWD/builds`). */
  buildsDir: string;
}

export class ShellExecutor implements Executor {
  readonly name = 'shell' as const;
  readonly features: ExecutorFeatures = { variables: true, image: false, services: false, shared: true, session: false, terminal: false };

  constructor(private readonly options: ShellExecutorOptions) {}

  async prepare(request: PrepareRequest): Promise<Environment> {
    request.log('Using Shell executor...');
    const buildsDir = path.resolve(this.options.buildsDir);
    const projectDir = path.join(buildsDir, request.shortToken, String(request.concurrentProjectId), ...request.projectPath.split('/'));
    await mkdir(buildsDir, { recursive: true });
    return new ShellEnvironment({ buildsDir, projectDir, hostProjectDir: projectDir, runningOn: os.hostname(), shared: true, image: null });
  }
}

class ShellEnvironment implements Environment {
  constructor(readonly info: EnvironmentInfo) {}

  run(request: RunRequest): Promise<RunResult> {
    return runShellScript(request, { cwd: this.info.buildsDir });
  }

  copyIn(tar: Readable, directory: string): Promise<void> {
    return extractInto(tar, directory);
  }

  async copyOut(directory: string): Promise<Readable | null> {
    const found = await stat(directory).catch(() => null);
    return found?.isDirectory() ? packDirectory(directory) : null;
  }

  async cleanup(): Promise<void> {
    // Shared builds stay for the next job; nothing else was created.
  }
}
