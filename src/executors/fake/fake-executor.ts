/**
 * The scriptable fake executor, for scheduler and engine tests that need no real process.
 * Files live in a temporary directory (so copyIn/copyOut behave like the real thing); what a
 * script "does" is decided by a handler the test supplies. The default handler runs a tiny
 * subset of sh (see mini-shell.ts), enough for the executor conformance suite.
 */
import { mkdtemp, mkdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { extractInto, packDirectory } from '../tar.ts';
import type { Environment, EnvironmentInfo, Executor, ExecutorFeatures, PrepareRequest, RunRequest, RunResult } from '../types.ts';
import { runMiniShell } from './mini-shell.ts';

export interface FakeRun {
  request: RunRequest;
  environment: EnvironmentInfo;
  jobId: number;
}

/** Decides what a script prints and how it ends. Output goes through `request.onOutput`. */
export type FakeHandler = (run: FakeRun) => Promise<RunResult> | RunResult;

export interface FakeExecutorOptions {
  handler?: FakeHandler;
  /** Make prepare fail with this message (an environment that cannot be had). */
  prepareError?: string;
}

export class FakeExecutor implements Executor {
  readonly name = 'fake' as const;
  readonly features: ExecutorFeatures = { variables: true, image: true, services: true, shared: false, session: false, terminal: false };
  /** Every script run, in order: for assertions. */
  readonly runs: { jobId: number; stage: string; script: string; exitCode: number }[] = [];
  /** Environments currently prepared and not cleaned up. */
  readonly live = new Set<number>();

  constructor(private readonly options: FakeExecutorOptions = {}) {}

  async prepare(request: PrepareRequest): Promise<Environment> {
    request.log('Using Fake executor...');
    if (this.options.prepareError) throw new Error(this.options.prepareError);
    const root = await mkdtemp(path.join(os.tmpdir(), 'gantry-fake-'));
    const buildsDir = path.join(root, 'builds');
    const projectDir = path.join(buildsDir, ...request.projectPath.split('/'));
    await mkdir(projectDir, { recursive: true });
    const info: EnvironmentInfo = { buildsDir, projectDir, hostProjectDir: null, runningOn: 'fake', shared: false, image: request.image?.name ?? null };
    this.live.add(request.jobId);
    const handler = this.options.handler ?? ((run: FakeRun) => runMiniShell(run.request, run.environment));
    return {
      info,
      run: async (runRequest) => {
        const result = await handler({ request: runRequest, environment: info, jobId: request.jobId });
        this.runs.push({ jobId: request.jobId, stage: runRequest.stage, script: runRequest.script, exitCode: result.exitCode });
        return result;
      },
      copyIn: (tar: Readable, directory: string) => extractInto(tar, directory, undefined, { anySymlinkTarget: true }),
      copyOut: async (directory: string) => ((await stat(directory).catch(() => null))?.isDirectory() ? packDirectory(directory) : null),
      cleanup: async () => {
        this.live.delete(request.jobId);
        await rm(root, { recursive: true, force: true });
      },
    };
  }
}
