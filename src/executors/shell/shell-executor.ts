/**
 * The shell executor: scripts run on this machine under
 * `<builds_dir>/<short token>/<concurrent project id>/<namespace>/<project>` (reference §8.4).
 * Builds are shared between jobs (a fetch reuses the previous checkout), unless each job is
 * given a fresh directory of its own (`runner exec`), removed at its clean-up.
 */
import { mkdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { extractInto, packDirectory } from '../tar.ts';
import type { Environment, EnvironmentInfo, Executor, ExecutorFeatures, PrepareRequest, RunRequest, RunResult } from '../types.ts';
import { runShellScript } from './process.ts';
import { projectDirFor } from '../clone-path.ts';
import { removeTree } from '../../shared/remove-tree.ts';

export interface ShellExecutorOptions {
  /** Absolute builds directory (gitlab-runner default: `$PWD/builds`). */
  buildsDir: string;
  /**
   * Each job in a fresh `<builds_dir>/job-<id>/<namespace>/<project>`, removed at its clean-up:
   * nothing a job leaves reaches the next one (`runner exec`, where jobs are not a server's).
   */
  freshPerJob?: boolean;
}

export const SHELL_FEATURES: Readonly<ExecutorFeatures> = { variables: true, image: false, services: false, shared: true, session: false, terminal: false };

export class ShellExecutor implements Executor {
  readonly name = 'shell' as const;
  readonly features: ExecutorFeatures = { ...SHELL_FEATURES };

  constructor(private readonly options: ShellExecutorOptions) {}

  async prepare(request: PrepareRequest): Promise<Environment> {
    request.log('Using Shell executor...');
    const root = path.resolve(this.options.buildsDir);
    if (this.options.freshPerJob) {
      const buildsDir = path.join(root, `job-${request.jobId}`);
      // A directory left by an earlier job of the same id (a retried request) is not fresh.
      await removeTree(buildsDir);
      await mkdir(buildsDir, { recursive: true });
      const projectDir = projectDirFor(request, buildsDir, path.join(buildsDir, ...request.projectPath.split('/')), false);
      return new ShellEnvironment({ buildsDir, projectDir, hostProjectDir: projectDir, runningOn: os.hostname(), shared: true, image: null }, buildsDir);
    }
    const projectDir = projectDirFor(request, root, path.join(root, request.shortToken, String(request.concurrentProjectId), ...request.projectPath.split('/')), false);
    await mkdir(root, { recursive: true });
    return new ShellEnvironment({ buildsDir: root, projectDir, hostProjectDir: projectDir, runningOn: os.hostname(), shared: true, image: null }, null);
  }
}

class ShellEnvironment implements Environment {
  constructor(
    readonly info: EnvironmentInfo,
    /** The job's own directory, removed at clean-up; null when builds are shared. */
    private readonly ownDirectory: string | null,
  ) {}

  run(request: RunRequest): Promise<RunResult> {
    return runShellScript(request, { cwd: this.info.buildsDir });
  }

  /** A link is unpacked as a link whatever it points at (a virtualenv's `/usr/bin/python3`), as gitlab-runner does; nothing is written through one that leaves `directory`. */
  copyIn(tar: Readable, directory: string): Promise<void> {
    return extractInto(tar, directory, undefined, { anySymlinkTarget: true });
  }

  async copyOut(directory: string): Promise<Readable | null> {
    const found = await stat(directory).catch(() => null);
    return found?.isDirectory() ? packDirectory(directory) : null;
  }

  async cleanup(): Promise<void> {
    // Shared builds stay for the next job; nothing else was created.
    if (this.ownDirectory !== null) await removeTree(this.ownDirectory);
  }
}
