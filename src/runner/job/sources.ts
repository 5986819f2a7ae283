/**
 * get_sources (reference §8.3) with the git CLI on the runner's machine: GIT_STRATEGY
 * clone|fetch|none|empty, git_info.depth, refspecs, GIT_CHECKOUT, GIT_CLEAN_FLAGS,
 * GIT_FETCH_EXTRA_FLAGS, GIT_SUBMODULE_STRATEGY (with GIT_SUBMODULE_DEPTH, GIT_SUBMODULE_PATHS and
 * GIT_SUBMODULE_UPDATE_FLAGS, the instance's URLs rewritten for them: GIT_SUBMODULE_FORCE_HTTPS), the job-token URL (or clone_url). The
 * docker executor then receives the checkout through copyIn, so a remote daemon needs no git.
 * The git commands run in one sh process (a spawn from node costs more than git itself).
 */
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runShellScript } from '../../executors/shell/process.ts';
import { runCollected } from '../../shared/process-spawner.ts';
import type { GitInfo } from '../../protocol/job-payload.ts';
import { proactiveAuthEnvironment } from './git-auth.ts';
import { goInt } from './go-values.ts';
import { insteadOfOptions } from './submodule-urls.ts';
import { quote } from './script.ts';
import { ANSI, type JobTrace } from './trace.ts';

export type GitStrategy = 'clone' | 'fetch' | 'none' | 'empty';
export type SubmoduleStrategy = 'none' | 'normal' | 'recursive';

export interface SourcesRequest {
  git: GitInfo;
  strategy: GitStrategy;
  checkout: boolean;
  /** GIT_CLEAN_FLAGS (default `-ffdx`; `none` skips the clean). */
  cleanFlags: string;
  /** GIT_FETCH_EXTRA_FLAGS (default `--prune --quiet`; `none`: no flags). */
  fetchFlags: string;
  submodules: SubmoduleStrategy;
  /** GIT_SUBMODULE_DEPTH (gitlab-runner's default: the payload's depth; 0 or none is no depth). */
  submoduleDepth?: number;
  /** GIT_SUBMODULE_PATHS: git pathspecs of the submodules to sync and update (none: all). */
  submodulePaths?: readonly string[];
  /** GIT_SUBMODULE_UPDATE_FLAGS, added to `git submodule update`. */
  submoduleUpdateFlags?: readonly string[];
  /** URL rewrites for `git submodule update` (submodule-urls.ts): `[replacement, original]`. */
  submoduleInsteadOf?: ReadonlyArray<readonly [string, string]>;
  remoteUrl: string;
  /** Where git works on this machine. */
  directory: string;
  /**
   * `directory` holds an earlier checkout's files, and `.git` only its index (EnvironmentInfo.recycledCheckout):
   * the repository is made as in a new directory, and its checkout writes only what differs.
   */
  recycled?: boolean;
  /** Object directories a new repository borrows (JobSettings.sourcesAlternates). */
  alternates?: readonly string[];
  /** Commits whose whole history the alternates hold, with its length (JobSettings.sourcesShortHistories). */
  shortHistories?: readonly ShortHistory[];
  /** The alternates' refs a new repository's fetch is told of (JobSettings.sourcesAlternateRefPrefixes). */
  alternateRefPrefixes?: readonly string[];
  /** A directory of this job's own, not yet existing: `git init`'s template is written there. */
  templateDirectory: string;
  /** The same directory as the job sees it (for the messages). */
  displayDirectory: string;
  userAgent: string;
  /** git's TLS settings for the instance (GIT_SSL_CAINFO...; server-tls.ts). */
  gitEnvironment?: Readonly<Record<string, string>>;
  trace: JobTrace;
  signal: AbortSignal;
}

export const EMPTY_NOTICE = 'Skipping Git repository setup and creating an empty build directory';

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
  if (value === 'clone' || value === 'fetch' || value === 'none' || value === 'empty') return value;
  return allowGitFetch ? 'fetch' : 'clone';
}

/** GIT_SUBMODULE_STRATEGY; null for a value gitlab-runner refuses (`unknown GIT_SUBMODULE_STRATEGY`). */
export function submoduleStrategy(value: string | undefined): SubmoduleStrategy | null {
  if (value === undefined || value === '' || value === 'none') return 'none';
  return value === 'normal' || value === 'recursive' ? value : null;
}

/** GIT_SUBMODULE_DEPTH as gitlab-runner reads it (Go's Atoi), or else the payload's depth. */
export function submoduleDepth(value: string | undefined, depth: number): number {
  return goInt(value) ?? depth;
}

/**
 * GIT_SUBMODULE_PATHS split on white space; a lone `:(exclude)` (the path after a space) is
 * refused, as gitlab-runner does, rather than handed to git as "exclude nothing".
 */
export function submodulePaths(value: string | undefined): string[] {
  const paths = words(value ?? '');
  if (paths.includes(':(exclude)')) throw new SourcesError(`GIT_SUBMODULE_PATHS: invalid submodule pathspec '${value}'`, 1);
  return paths;
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

const exists = (file: string): Promise<boolean> => stat(file).then(() => true, () => false);

/** A POSIX sh command line of `words`. */
const command = (...words: string[]): string => words.map((word) => quote(word, 'sh')).join(' ');
/** Runs `words`; a failure ends the script with git's exit status. */
const must = (...words: string[]): string => `${command(...words)} || exit $?`;
const say = (text: string): string => `printf '%s\\n' ${quote(text, 'sh')}`;
const notice = (text: string): string => say(`${ANSI.boldGreen}${text}${ANSI.reset}`);

/**
 * The git commands of get_sources as one sh script, as gitlab-runner's generated script
 * runs them: one shell on this machine instead of a process spawned from node per step.
 */
function sourcesScript(request: SourcesRequest, existed: boolean, empty: boolean): string {
  const { git: info } = request;
  const lines = [
    must('git', 'init', '-q', '--template', request.templateDirectory, request.directory),
    say(`${existed ? 'Reinitialized existing' : 'Initialized empty'} Git repository in ${request.displayDirectory}/.git/`),
    must('cd', request.directory),
  ];
  if (existed) {
    lines.push(
      must('git', 'config', 'fetch.recurseSubmodules', 'false'),
      `if ${command('git', 'remote', 'add', 'origin', request.remoteUrl)} >/dev/null 2>&1; then`,
      `  ${notice('Created fresh repository.')}`,
      'else',
      `  ${must('git', 'remote', 'set-url', 'origin', request.remoteUrl)}`,
      'fi',
    );
  } else {
    // The repository git init made just now (its settings from the template): the remote
    // `git remote add` would write, appended by the shell's printf (one git process fewer).
    const settings = ['[remote "origin"]', `\turl = ${configValue(request.remoteUrl)}`, '\tfetch = +refs/heads/*:refs/remotes/origin/*'];
    lines.push(`printf '%s\\n' ${settings.map((line) => quote(line, 'sh')).join(' ')} >> .git/config || exit $?`, notice('Created fresh repository.'));
    const alternates = request.alternates ?? [];
    if (alternates.length > 0) lines.push(`printf '%s\\n' ${alternates.map((directory) => quote(directory, 'sh')).join(' ')} > .git/objects/info/alternates || exit $?`);
  }
  // A repository made just now needs no housekeeping: no background maintenance process after the fetch.
  const housekeeping = existed ? [] : ['-c', 'maintenance.auto=false', '-c', 'gc.auto=0'];
  const alternateRefs = request.alternateRefPrefixes ?? [];
  if (!existed && (request.alternates ?? []).length > 0 && alternateRefs.length > 0) housekeeping.push('-c', `core.alternateRefsPrefixes=${alternateRefs.join(' ')}`);
  const fetch = ['git', '-c', `http.userAgent=${request.userAgent}`, ...housekeeping, 'fetch', 'origin', ...info.refspecs];
  if (info.depth > 0 && !depthIsMoot(request, existed)) fetch.push('--depth', String(info.depth));
  if (request.fetchFlags.trim() !== 'none') fetch.push(...words(request.fetchFlags));
  lines.push(must(...fetch));

  if (request.checkout) {
    lines.push(notice(`Checking out ${info.sha.slice(0, 8)} as ${info.ref}...`), must('git', 'checkout', '-f', '-q', info.sha));
    // A directory that was empty holds nothing but the checkout: nothing to clean.
    if (request.cleanFlags.trim() !== 'none' && !empty) lines.push(must('git', 'clean', ...words(request.cleanFlags)));
  } else {
    lines.push(notice('Skipping Git checkout'));
  }

  if (request.submodules === 'none') lines.push(notice('Skipping Git submodules setup'));
  else lines.push(...submoduleLines(request));
  lines.push('exit 0');
  return `${lines.join('\n')}\n`;
}

const words = (flags: string): string[] => flags.split(/\s+/).filter(Boolean);

/**
 * gitlab-runner's submodule commands: init, sync, what an earlier job changed in the
 * submodules cleaned and reset, update, and what the update left cleaned.
 */
function submoduleLines(request: SourcesRequest): string[] {
  const recursive = request.submodules === 'recursive' ? ['--recursive'] : [];
  const depth = request.submoduleDepth ?? 0;
  const withDepth = depth > 0 ? ` with git depth set to ${depth}` : '';
  const paths = request.submodulePaths?.length ? ['--', ...request.submodulePaths] : [];
  const cleanFlags = request.cleanFlags.trim() === 'none' ? '-ffdx' : words(request.cleanFlags).join(' ');
  const foreach = (command: string): string => must('git', 'submodule', 'foreach', ...recursive, command);
  return [
    notice(`Updating/initializing submodules${recursive.length > 0 ? ' recursively' : ''}${withDepth}...`),
    must('git', 'submodule', 'init'),
    must('git', 'submodule', 'sync', ...recursive, ...paths),
    foreach(`git clean ${cleanFlags}`),
    foreach('git reset --hard'),
    must('git', ...insteadOfOptions(request.submoduleInsteadOf ?? []), 'submodule', 'update', '--init', ...recursive, ...(depth > 0 ? ['--depth', String(depth)] : []), ...(request.submoduleUpdateFlags ?? []), ...paths),
    foreach(`git clean ${cleanFlags}`),
  ];
}

/** A commit and how many commits its history has. */
export interface ShortHistory {
  sha: string;
  commits: number;
}

/**
 * A new repository fetching a commit whose whole history its alternates hold, in no more
 * commits than the depth: the depth cuts nothing (no `.git/shallow`, the same objects and
 * refs), but a shallow fetch always negotiates and receives a pack, where a plain one finds
 * the commit at hand and ends after the refs.
 */
function depthIsMoot(request: SourcesRequest, existed: boolean): boolean {
  if (existed || (request.alternates ?? []).length === 0) return false;
  return (request.shortHistories ?? []).some((history) => history.sha === request.git.sha && history.commits <= request.git.depth);
}

/**
 * gitlab-runner's template of `git init`: only this config (no sample hooks, no
 * `description`, no `info/exclude`), which a new repository starts with.
 */
const TEMPLATE_CONFIG = ['[init]', '\tdefaultBranch = none', '[fetch]', '\trecurseSubmodules = false', '[credential]', '\tinteractive = never', '[gc]', '\tautoDetach = false', ''].join('\n');

/** A value of a git config file, quoted (`"` and `\` escaped). */
function configValue(value: string): string {
  if (/[\n\r\0]/.test(value)) throw new SourcesError('the repository URL holds a line break', 1);
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** What a job stopped during git can leave in `.git`, which would fail the next fetch or run a hook. */
const LEFTOVERS = ['index.lock', 'shallow.lock', 'HEAD.lock', 'config.lock', 'hooks/post-checkout'];

/**
 * The leftovers deeper down, as gitlab-runner removes them: a ref's `*.lock` under `.git/refs`
 * and, when submodules are updated, the same files of each submodule's repository under `.git/modules`.
 */
async function deepLeftovers(gitDir: string, submodules: boolean): Promise<string[]> {
  const under = (directory: string): Promise<string[]> => readdir(path.join(gitDir, directory), { recursive: true }).then((names) => names.map((name) => path.join(directory, name)), () => []);
  const [refs, modules] = await Promise.all([under('refs'), submodules ? under('modules') : []]);
  const moduleLeftover = (file: string): boolean => LEFTOVERS.some((leftover) => file.endsWith(`${path.sep}${leftover}`));
  return [...refs.filter((file) => file.endsWith('.lock')), ...modules.filter(moduleLeftover)];
}

async function removeLeftovers(gitDir: string, submodules: boolean): Promise<void> {
  const files = [...LEFTOVERS, ...(await deepLeftovers(gitDir, submodules))];
  // Best effort, as gitlab-runner's `rm -f`: git itself reports a lock that stayed.
  await Promise.all(files.map((file) => rm(path.join(gitDir, file), { force: true }).catch(() => undefined)));
}

export async function getSources(request: SourcesRequest): Promise<void> {
  const { trace, git: info } = request;
  if (request.strategy === 'none') {
    trace.notice('Skipping Git repository setup');
    await mkdir(request.directory, { recursive: true });
    return;
  }
  if (request.strategy === 'empty') {
    // gitlab-runner 17.x: like `none`, in a project directory emptied of what earlier jobs left.
    trace.notice(EMPTY_NOTICE);
    await rm(request.directory, { recursive: true, force: true });
    await mkdir(request.directory, { recursive: true });
    return;
  }
  trace.notice(info.depth > 0 ? `Fetching changes with git depth set to ${info.depth}...` : 'Fetching changes...');
  if (request.strategy === 'clone') await rm(request.directory, { recursive: true, force: true });
  // A recycled checkout is a new directory's (its `.git` only the index): nothing to clean after the checkout.
  const recycled = request.strategy === 'fetch' && request.recycled === true;
  const existed = !recycled && (await exists(path.join(request.directory, '.git')));
  // Independent, so at once: whether the directory is empty, the locks a stopped job left in
  // its repository (when there is one), the directory itself and git init's template.
  const empty = recycled ? Promise.resolve(true) : readdir(request.directory).then((entries) => entries.length === 0, () => true);
  await Promise.all([
    empty,
    ...(existed ? [removeLeftovers(path.join(request.directory, '.git'), request.submodules !== 'none')] : []),
    mkdir(request.directory, { recursive: true }),
    mkdir(request.templateDirectory, { recursive: true }).then(() => writeFile(path.join(request.templateDirectory, 'config'), TEMPLATE_CONFIG)),
  ]);
  let exitCode: number;
  try {
    ({ exitCode } = await runShellScript(
      { stage: 'get_sources', kind: 'helper', shell: 'sh', script: sourcesScript(request, existed, await empty), onOutput: (chunk) => trace.write(chunk), signal: request.signal },
      { cwd: request.directory, env: gitEnvironment(request) },
    ));
  } catch (error) {
    throw new SourcesError(`git: ${error instanceof Error ? error.message : String(error)}`, 1);
  }
  if (request.signal.aborted) throw new SourcesError('canceled', 1);
  if (exitCode !== 0) throw new SourcesError(`exit status ${exitCode}`, exitCode);
}

function gitEnvironment(request: SourcesRequest): NodeJS.ProcessEnv {
  const environment = { ...process.env, ...request.gitEnvironment };
  return { ...environment, ...proactiveAuthEnvironment(request.remoteUrl, environment), GIT_TERMINAL_PROMPT: '0', GIT_LFS_SKIP_SMUDGE: '1' };
}

/**
 * gitlab-runner's clear_worktree, once before the second attempt at the sources: what git
 * tracks and what it does not goes (`git rm -rf .`, `git clean -ffdx`), so that a fetch a
 * changed submodule broke can succeed. Its own failure is the next attempt's to report.
 */
export async function clearWorktree(directory: string, trace: JobTrace, signal: AbortSignal): Promise<void> {
  trace.notice('Deleting tracked and untracked files...');
  if (!(await exists(path.join(directory, '.git')))) return;
  const script = `${command('git', 'rm', '-rf', '--ignore-unmatch', '.')}\n${command('git', 'clean', '-ffdx')}\n`;
  await runShellScript({ stage: 'get_sources', kind: 'helper', shell: 'sh', script, onOutput: (chunk) => trace.write(chunk), signal }, { cwd: directory, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }).catch(() => undefined);
}

/**
 * Files git tracks in `directory` (for `untracked`), or an empty set when it is no repository.
 * git is forked by the process's spawner helper, not by this (large) process.
 */
export async function trackedFiles(directory: string): Promise<Set<string>> {
  if (!(await exists(path.join(directory, '.git')))) return new Set();
  const result = await runCollected({ file: 'git', args: ['ls-files', '-z'], cwd: directory, env: process.env }).catch(() => null);
  if (result?.code !== 0) return new Set();
  return new Set(result.stdout.toString('utf8').split('\0').filter(Boolean));
}
