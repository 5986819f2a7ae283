/**
 * The shell executor: scripts run on this machine under
 * `<builds_dir>/<short token>/<concurrent project id>/<namespace>/<project>` (reference §8.4).
 * Builds are shared between jobs (a fetch reuses the previous checkout), unless jobs are
 * isolated (`runner exec`): then each concurrency slot has a directory of its own, which every
 * job of the slot gets back as a new one would be (recycle.ts).
 */
import { mkdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { extractInto, packDirectory } from '../tar.ts';
import type { Environment, EnvironmentInfo, Executor, ExecutorFeatures, PrepareRequest, RunRequest, RunResult } from '../types.ts';
import { runShellScript } from './process.ts';
import { projectDirFor } from '../clone-path.ts';
import { recycleBuildDirectory } from './recycle.ts';

export interface ShellExecutorOptions {
  /** Absolute builds directory (gitlab-runner default: `$PWD/builds`). */
  buildsDir: string;
  /**
   * Each job in `<builds_dir>/<concurrent id>/<namespace>/<project>` (CI_BUILDS_DIR its slot's
   * directory), emptied for it but for an earlier checkout brought back to a fresh clone's state:
   * nothing a job leaves reaches the next one (`runner exec`, where jobs are not a server's).
   * Its scripts' git looks for no repository above `builds_dir` (GIT_CEILING_DIRECTORIES).
   */
  isolated?: boolean;
}

export const SHELL_FEATURES: Readonly<ExecutorFeatures> = { variables: true, image: false, services: false, shared: true, session: false, terminal: false };

export class ShellExecutor implements Executor {
  readonly name = 'shell' as const;
  readonly features: ExecutorFeatures = { ...SHELL_FEATURES };

  constructor(private readonly options: ShellExecutorOptions) {}

  async prepare(request: PrepareRequest): Promise<Environment> {
    request.log('Using Shell executor...');
    const root = path.resolve(this.options.buildsDir);
    if (this.options.isolated) {
      const buildsDir = path.join(root, String(request.concurrentId));
      const projectDir = projectDirFor(request, buildsDir, path.join(buildsDir, ...request.projectPath.split('/')), false);
      const recycledCheckout = await recycleBuildDirectory(buildsDir, projectDir, request.recyclableSources === true);
      const ceiling = [process.env.GIT_CEILING_DIRECTORIES, root].filter(Boolean).join(path.delimiter);
      return new ShellEnvironment({ buildsDir, projectDir, hostProjectDir: projectDir, runningOn: os.hostname(), shared: true, image: null, recycledCheckout }, { ...process.env, GIT_CEILING_DIRECTORIES: ceiling });
    }
    const projectDir = projectDirFor(request, root, path.join(root, request.shortToken, String(request.concurrentProjectId), ...request.projectPath.split('/')), false);
    await mkdir(root, { recursive: true });
    return new ShellEnvironment({ buildsDir: root, projectDir, hostProjectDir: projectDir, runningOn: os.hostname(), shared: true, image: null });
  }
}

class ShellEnvironment implements Environment {
  constructor(
    readonly info: EnvironmentInfo,
    /** The scripts' environment, when not this process's. */
    private readonly env?: NodeJS.ProcessEnv,
  ) {}

  run(request: RunRequest): Promise<RunResult> {
    return runShellScript(request, { cwd: this.info.buildsDir, env: this.env });
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
    // Builds stay for the next job (an isolated slot's is recycled then); nothing else was created.
  }
}
