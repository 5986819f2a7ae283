/** Test support for the job engine: a recording JobSession, payloads, local git repositories. */
import { execa } from '#deps/execa';
import { copyFile, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ShellExecutor } from '../../src/executors/shell/shell-executor.ts';
import type { Dependency, JobPayload, JobVariable } from '../../src/protocol/job-payload.ts';
import type { JobSettings } from '../../src/runner/job/context.ts';
import { runJob } from '../../src/runner/job/engine.ts';
import type { RunnerIdentity } from '../../src/runner/job/identity.ts';
import { DependencyDownloadError, type ArtifactUpload, type ArtifactUploadResult, type JobOutcome, type JobSession } from '../../src/runner/job/session.ts';

export class RecordingSession implements JobSession {
  readonly chunks: Buffer[] = [];
  readonly uploads: (ArtifactUpload & { copy: string })[] = [];
  outcome: JobOutcome | null = null;
  finishedAt = 0;
  uploadStatus = 201;
  private readonly controller = new AbortController();
  private readonly graceful = new AbortController();
  readonly canceled = this.controller.signal;
  readonly cancelRequested = this.graceful.signal;

  constructor(
    private readonly dependencyFiles: Record<number, string | 404 | 403> = {},
    private readonly copies = '',
  ) {}

  appendTrace(bytes: Buffer): void {
    this.chunks.push(Buffer.from(bytes));
  }

  get trace(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  cancel(): void {
    this.controller.abort();
  }

  /** `Job-Status: canceling`: a graceful cancel. */
  requestCancel(): void {
    this.graceful.abort();
  }

  async uploadArtifact(upload: ArtifactUpload): Promise<ArtifactUploadResult> {
    const copy = path.join(this.copies || (await mkdtemp(path.join(os.tmpdir(), 'gantry-upload-'))), `${this.uploads.length}-${upload.fileName}`);
    await copyFile(upload.file, copy);
    this.uploads.push({ ...upload, copy });
    return { ok: this.uploadStatus === 201, status: this.uploadStatus, statusText: this.uploadStatus === 201 ? '201 Created' : `${this.uploadStatus} Request Entity Too Large` };
  }

  async downloadArtifacts(dependency: Dependency, destination: string): Promise<void> {
    const source = this.dependencyFiles[dependency.id];
    if (source === 404 || source === 403 || source === undefined) throw new DependencyDownloadError(`${source ?? 404} Not Found`, true);
    await copyFile(source, destination);
  }

  async finish(outcome: JobOutcome): Promise<void> {
    this.outcome = outcome;
    this.finishedAt = Date.now();
  }
}

export const runnerIdentity: RunnerIdentity = {
  name: 'test-runner',
  shortToken: 'runnerto',
  productName: 'gantry-runner',
  version: '0.1.0',
  revision: 'test',
  arch: 'linux/amd64',
  userAgent: 'gantry-runner 0.1.0 (test)',
};

export async function jobSettings(overrides: Partial<JobSettings> = {}): Promise<JobSettings> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'gantry-engine-'));
  return {
    shell: 'bash',
    buildsDir: path.join(root, 'builds'),
    cacheDir: path.join(root, 'cache'),
    outputLimit: 4096 * 1024,
    environment: [],
    debugTraceDisabled: false,
    afterScriptTimeout: 300,
    prepareAttempts: 3,
    prepareRetryDelayMs: 10,
    ...overrides,
  };
}

export function variable(key: string, value: string, extra: Partial<JobVariable> = {}): JobVariable {
  return { key, value, public: true, masked: false, ...extra };
}

let nextJob = 1000;

export function payload(overrides: Partial<JobPayload> = {}): JobPayload {
  const id = ++nextJob;
  return {
    id,
    token: `jobtok-${id}-secret`,
    allow_git_fetch: false,
    job_info: { name: 'test', stage: 'test', project_id: 7, project_name: 'proj' },
    git_info: { repo_url: 'file:///nowhere', ref: 'main', sha: '0'.repeat(40), before_sha: '0'.repeat(40), ref_type: 'branch', refspecs: [], depth: 0 },
    runner_info: { timeout: 3600, runner_session_url: null },
    variables: [variable('CI_JOB_ID', String(id)), variable('CI_JOB_TOKEN', `jobtok-${id}-secret`, { public: false, masked: true }), variable('GIT_STRATEGY', 'none')],
    steps: [{ name: 'script', script: ['echo hello'], timeout: 3600, when: 'on_success', allow_failure: false }],
    image: null,
    services: [],
    artifacts: [],
    cache: [],
    credentials: [],
    dependencies: [],
    features: { trace_sections: true },
    ...overrides,
  };
}

/** A bare repository with one commit on main (files given), served by file path. */
export async function gitRepository(files: Record<string, string>): Promise<{ url: string; sha: string; bare: string; work: string }> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'gantry-repo-'));
  const work = path.join(root, 'work');
  const bare = path.join(root, 'group', 'project.git');
  await mkdir(work, { recursive: true });
  const git = (args: string[], cwd = work) => execa('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd });
  await git(['init', '-q', '-b', 'main']);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(work, name)), { recursive: true });
    await writeFile(path.join(work, name), content);
  }
  await git(['add', '-A']);
  await git(['commit', '-q', '-m', 'first']);
  await mkdir(path.dirname(bare), { recursive: true });
  await execa('git', ['clone', '-q', '--bare', work, bare]);
  const sha = (await git(['rev-parse', 'HEAD'])).stdout.trim();
  return { url: `file://${bare}`, sha, bare, work };
}

/** Normalises section timestamps so traces compare byte for byte. */
export function stableTrace(trace: string): string {
  return trace.replace(/section_(start|end):\d+:/g, 'section_$1:T:');
}

/** Runs `job` with the shell executor in `settings`' builds directory (in the runner's `concurrentId` slot): its outcome and its trace (timestamps normalised). */
export async function runShellJob(job: JobPayload, settings: JobSettings, options: { concurrentId?: number } = {}): Promise<{ outcome: JobOutcome; trace: string }> {
  const session = new RecordingSession();
  const outcome = await runJob({ payload: job, executor: new ShellExecutor({ buildsDir: settings.buildsDir }), session, runner: runnerIdentity, settings, concurrentId: options.concurrentId });
  return { outcome, trace: stableTrace(session.trace) };
}
