/**
 * get_sources (reference §8.3) with the git CLI on the runner's machine: GIT_STRATEGY
 * clone|fetch|none, git_info.depth, refspecs, GIT_CHECKOUT, GIT_CLEAN_FLAGS,
 * GIT_FETCH_EXTRA_FLAGS, GIT_SUBMODULE_STRATEGY, the job-token URL (or clone_url). The
 * docker executor then receives the checkout through copyIn, so a remote daemon needs no git.
 */
import { execa } from 'execa';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { GitInfo } from '../../protocol/job-payload.ts';
import type { JobTrace } from './trace.ts';

export type GitStrategy = 'clone' | 'fetch' | 'none';
export type SubmoduleStrategy = 'none' | 'normal' | 'recursive';

export interface SourcesRequest {
  git: GitInfo;
  strategy: GitStrategy;
  checkout: boolean;
  /** GIT_CLEAN_FLAGS (default `-ffdx`; `none` skips the clean). */
  cleanFlags: string;
  /** GIT_FETCH_EXTRA_FLAGS (default `--prune --quiet`). */
  fetchFlags: string;
  submodules: SubmoduleStrategy;
  remoteUrl: string;
  /** Where git works on this machine. */
  directory: string;
  /** The same directory as the job sees it (for the messages). */
  displayDirectory: string;
  userAgent: string;
  trace: JobTrace;
  signal: AbortSignal;
}

export class SourcesError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'SourcesError';
  }
}

export function gitStrategy(value: string | undefined, allowGitFetch: boolean): GitStrategy {
  if (value === 'clone' || value === 'fetch' || value === 'none') return value;
  return allowGitFetch ? 'fetch' : 'clone';
}

export function submoduleStrategy(value: string | undefined): SubmoduleStrategy {
  return value === 'normal' || value === 'recursive' ? value : 'none';
}

/** `clone_url` rebuilt as gitlab-runner does: `<clone_url>/<CI_PROJECT_PATH>.git` with the job token. */
export function remoteUrl(repoUrl: string, cloneUrl: string | undefined, projectPath: string, jobToken: string): string {
  if (!cloneUrl) return repoUrl;
  let url: URL;
  try {
    url = new URL(cloneUrl.replace(/\/+$/, ''));
  } catch {
    return repoUrl;
  }
  url.username = 'gitlab-ci-token';
  url.password = jobToken;
  url.pathname = path.posix.join(url.pathname, `${projectPath}.git`);
  return url.toString();
}

async function git(request: SourcesRequest, args: string[], options: { cwd?: string; quietFailure?: boolean } = {}): Promise<number> {
  const child = execa('git', args, {
    cwd: options.cwd ?? request.directory,
    reject: false,
    buffer: false,
    stdin: 'ignore',
    env: { GIT_TERMINAL_PROMPT: '0', GIT_LFS_SKIP_SMUDGE: '1' },
    cancelSignal: request.signal,
    forceKillAfterDelay: 1000,
  });
  if (!options.quietFailure) {
    child.stdout?.on('data', (chunk: Buffer) => request.trace.write(chunk));
    child.stderr?.on('data', (chunk: Buffer) => request.trace.write(chunk));
  }
  const result = await child;
  if (result.isCanceled) throw new SourcesError('canceled', 1);
  if (result.exitCode === undefined) throw new SourcesError(`git ${args[0]}: ${result.shortMessage}`, 1);
  return result.exitCode;
}

async function must(request: SourcesRequest, args: string[], cwd?: string): Promise<void> {
  const code = await git(request, args, { cwd });
  if (code !== 0) throw new SourcesError(`exit status ${code}`, code);
}

const exists = (file: string): Promise<boolean> => stat(file).then(() => true, () => false);

export async function getSources(request: SourcesRequest): Promise<void> {
  const { trace, git: info } = request;
  if (request.strategy === 'none') {
    trace.notice('Skipping Git repository setup');
    await mkdir(request.directory, { recursive: true });
    return;
  }
  trace.notice(info.depth > 0 ? `Fetching changes with git depth set to ${info.depth}...` : 'Fetching changes...');
  if (request.strategy === 'clone') await rm(request.directory, { recursive: true, force: true });
  for (const lock of ['index.lock', 'shallow.lock', 'HEAD.lock', 'config.lock', 'hooks/post-checkout']) {
    await rm(path.join(request.directory, '.git', lock), { force: true });
  }
  const existed = await exists(path.join(request.directory, '.git'));
  await mkdir(request.directory, { recursive: true });
  await must(request, ['init', '-q', request.directory]);
  trace.write(`${existed ? 'Reinitialized existing' : 'Initialized empty'} Git repository in ${request.displayDirectory}/.git/\n`);
  await must(request, ['config', 'fetch.recurseSubmodules', 'false']);
  if ((await git(request, ['remote', 'add', 'origin', request.remoteUrl], { quietFailure: true })) === 0) {
    trace.notice('Created fresh repository.');
  } else {
    await must(request, ['remote', 'set-url', 'origin', request.remoteUrl]);
  }
  const fetch = ['-c', `http.userAgent=${request.userAgent}`, 'fetch', 'origin', ...info.refspecs];
  if (info.depth > 0) fetch.push('--depth', String(info.depth));
  fetch.push(...request.fetchFlags.split(/\s+/).filter(Boolean));
  await must(request, fetch);

  if (request.checkout) {
    trace.notice(`Checking out ${info.sha.slice(0, 8)} as ${info.ref}...`);
    await must(request, ['checkout', '-f', '-q', info.sha]);
    if (request.cleanFlags.trim() !== 'none') await must(request, ['clean', ...request.cleanFlags.split(/\s+/).filter(Boolean)]);
  } else {
    trace.notice('Skipping Git checkout');
  }

  if (request.submodules === 'none') {
    trace.notice('Skipping Git submodules setup');
    return;
  }
  const recursive = request.submodules === 'recursive' ? ['--recursive'] : [];
  trace.notice(request.submodules === 'recursive' ? 'Updating/initializing submodules recursively...' : 'Updating/initializing submodules...');
  await must(request, ['submodule', 'sync', ...recursive]);
  await must(request, ['submodule', 'update', '--init', ...recursive]);
  await must(request, ['submodule', 'foreach', ...recursive, 'git clean -ffxd']);
}

/** Files git tracks in `directory` (for `untracked`), or an empty set when it is no repository. */
export async function trackedFiles(directory: string): Promise<Set<string>> {
  if (!(await exists(path.join(directory, '.git')))) return new Set();
  const result = await execa('git', ['ls-files', '-z'], { cwd: directory, reject: false, stdin: 'ignore' });
  if (result.exitCode !== 0) return new Set();
  return new Set(result.stdout.split('\0').filter(Boolean));
}
