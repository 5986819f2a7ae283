/**
 * The user's working tree, read through git: where it is, what HEAD says, and a snapshot of
 * its files as a commit. The one place of `runner exec` that runs git in the user's tree.
 * Nothing here writes the user's index or refs: the snapshot is staged in a temporary index
 * file (GIT_INDEX_FILE) and its commit is referenced by no ref (git gc removes it in time).
 */
import { appendFile, copyFile, mkdir, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCollected, type CollectedRun } from '../shared/process-spawner.ts';
import { ExecError } from './errors.ts';

export interface HeadInfo {
  /** null on a repository without commits. */
  sha: string | null;
  /** HEAD's tree; null without commits. */
  tree: string | null;
  /**
   * A shallow clone (HEAD's history cut) or a partial one (its history's objects left on the
   * server it came from): the snapshot cannot carry that history, which no job could fetch.
   */
  historyIncomplete: boolean;
  /** How many commits HEAD's history has, when fewer than HISTORY_COUNT_LIMIT; else (or without commits) null. */
  historyLength: number | null;
  /** The repository's tags (name without `refs/tags/`, and the object each names). */
  tags: readonly { name: string; object: string }[];
  /** The repository's branches (name without `refs/heads/`, and the commit each names). */
  branches: readonly { name: string; object: string }[];
  /** The current branch; null when HEAD is detached. */
  branch: string | null;
  /** origin's default branch when known, else a local `init.defaultBranch`, `main` or `master`, else the current branch, else `main`. */
  defaultBranch: string;
  /** The URL of the `origin` remote, else of the first remote; null without one. */
  remoteUrl: string | null;
  /** git's `user.name` and `user.email`, those set. */
  user: { name?: string; email?: string };
  message: string;
  author: Identity;
  committer: Identity;
}

interface Identity {
  name: string;
  email: string;
  /** Git's raw date (`<epoch> <zone>`). */
  date: string;
}

/** `for-each-ref --format=%(objectname) %(refname)` lines of branches and tags. */
function refsOf(lines: string | null): { kind: 'heads' | 'tags'; name: string; object: string }[] {
  return (lines ?? '').split('\n').flatMap((line) => {
    const match = /^([0-9a-f]+) refs\/(heads|tags)\/(.+)$/.exec(line);
    return match ? [{ kind: match[2] as 'heads' | 'tags', name: match[3]!, object: match[1]! }] : [];
  });
}

const tagsOf = (refs: ReturnType<typeof refsOf>): HeadInfo['tags'] => refs.filter((ref) => ref.kind === 'tags').map(({ name, object }) => ({ name, object }));

/** At most this many of the repository's tags reach the local coordinator (its newest), and of another project's branches. */
const TAG_LIMIT = 2_000;

/** Histories are counted up to this many commits: enough to tell whether a job's GIT_DEPTH would cut one. */
const HISTORY_COUNT_LIMIT = 1_000;

const FALLBACK_IDENTITY: Identity = { name: 'Gantry exec', email: 'exec@gantry.invalid', date: '' };

/**
 * git with the user's environment and configuration (their excludes decide what is untracked),
 * forked by the process's spawner helper (src/shared/process-spawner.ts): this process loads
 * the coordinator meanwhile, and a fork of it costs far more than these short commands.
 */
function runGit(cwd: string, args: string[], env: Record<string, string> = {}, input?: string): Promise<CollectedRun> {
  return runCollected({ file: 'git', args, cwd, env: { ...process.env, ...env, GIT_TERMINAL_PROMPT: '0' }, input });
}

async function git(cwd: string, args: string[], env: Record<string, string> = {}, input?: string): Promise<string> {
  const result = await runGit(cwd, args, env, input).catch((error: unknown) => {
    throw new ExecError(`git ${args[0]} failed in ${cwd}: ${error instanceof Error ? error.message : String(error)}`);
  });
  if (result.code !== 0) {
    const detail = result.stderr.toString('utf8').trim().split('\n').pop() ?? '';
    throw new ExecError(`git ${args[0]} failed in ${cwd}: ${detail}`);
  }
  return result.stdout.toString('utf8');
}

async function gitOrNull(cwd: string, args: string[]): Promise<string | null> {
  const result = await runGit(cwd, args).catch(() => null);
  return result?.code === 0 ? result.stdout.toString('utf8').trim() : null;
}

/** The top of the working tree containing `cwd`; a clear error outside one. */
export async function workingTreeRoot(cwd: string): Promise<string> {
  const root = await gitOrNull(cwd, ['rev-parse', '--show-toplevel']);
  if (root === null || root === '') throw new ExecError(`not a git repository (or a bare one): ${cwd}`);
  return root;
}

export async function readHead(root: string): Promise<HeadInfo> {
  const [shallowAndSha, branch, originHead, settings, localRefs, counted] = await Promise.all([
    gitOrNull(root, ['rev-parse', '--is-shallow-repository', '--verify', '-q', 'HEAD^{commit}']),
    gitOrNull(root, ['symbolic-ref', '--short', '-q', 'HEAD']),
    gitOrNull(root, ['symbolic-ref', '--short', '-q', 'refs/remotes/origin/HEAD']),
    gitOrNull(root, ['config', '--get-regexp', '^(remote\\..*\\.(url|promisor)|extensions\\.(partialclone|objectformat)|init\\.defaultbranch|user\\.name|user\\.email)$']),
    gitOrNull(root, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/', 'refs/tags/']),
    gitOrNull(root, ['rev-list', '--count', `--max-count=${HISTORY_COUNT_LIMIT}`, 'HEAD']),
  ]);
  // Its object names would be refused as refs by the local coordinator, whose repositories are SHA-1 ones, as GitLab's are by default.
  if (/^extensions\.objectformat sha256$/im.test(settings ?? '')) throw new ExecError(`${root} uses SHA-256 object names (extensions.objectFormat): runner exec takes SHA-1 repositories only, GitLab's default`);
  const refs = refsOf(localRefs);
  let tags = tagsOf(refs);
  // Each becomes a ref file on the local coordinator: a repository with more gives its newest.
  if (tags.length > TAG_LIMIT) tags = tagsOf(refsOf(await gitOrNull(root, ['for-each-ref', '--sort=-creatordate', `--count=${TAG_LIMIT}`, '--format=%(objectname) %(refname)', 'refs/tags/'])));
  const defaultBranch = originHead?.replace(/^origin\//, '') || localDefaultBranch(branch, settings, refs.filter((ref) => ref.kind === 'heads').map((ref) => ref.name));
  const branches = refs.filter((ref) => ref.kind === 'heads').map(({ name, object }) => ({ name, object })).slice(0, TAG_LIMIT);
  const remoteUrl = remoteUrlOf(settings);
  const user = userOf(settings);
  const [shallowLine, sha = null] = shallowAndSha?.split('\n') ?? [];
  const partial = /^(remote\..*\.promisor true|extensions\.partialclone .+)$/im.test(settings ?? '');
  const historyIncomplete = shallowLine === 'true' || partial;
  const historyLength = counted !== null && Number(counted) < HISTORY_COUNT_LIMIT ? Number(counted) : null;
  if (sha === null) return { sha, tree: null, historyIncomplete, historyLength: null, tags, branches, branch, defaultBranch, remoteUrl, user, message: 'Working tree snapshot\n', author: FALLBACK_IDENTITY, committer: FALLBACK_IDENTITY };
  // One NUL-separated record: the tree, author, committer, then the raw message.
  const record = await git(root, ['log', '-1', '--format=%T%x00%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd%x00%B', '--date=raw', sha]);
  const [tree = '', an = '', ae = '', ad = '', cn = '', ce = '', cd = '', ...message] = record.split('\0');
  return {
    sha,
    tree,
    historyIncomplete,
    historyLength,
    tags,
    branches,
    branch,
    defaultBranch,
    remoteUrl,
    user,
    message: message.join('\0').replace(/\n+$/, '\n'),
    author: { name: an, email: ae, date: ad },
    committer: { name: cn, email: ce, date: cd },
  };
}

/**
 * The default branch of a clone that does not know origin's: the branch GitLab would have made
 * the default one when the repository was first pushed, as far as the clone can tell. Git's
 * `init.defaultBranch`, `main` or `master`, the first of them the clone has; else the current
 * branch; else `main`.
 */
function localDefaultBranch(current: string | null, settings: string | null, localBranches: readonly string[]): string {
  const configured = /^init\.defaultbranch (.+)$/im.exec(settings ?? '')?.[1]?.trim();
  const existing = new Set(localBranches);
  for (const candidate of [configured, 'main', 'master']) if (candidate && existing.has(candidate)) return candidate;
  return current ?? 'main';
}

/** From `git config --get-regexp` lines: the last `user.name` and `user.email` (git's own precedence: the repository's over the global ones). */
function userOf(lines: string | null): HeadInfo['user'] {
  const user: HeadInfo['user'] = {};
  for (const line of (lines ?? '').split('\n')) {
    const match = /^user\.(name|email) (.*)$/i.exec(line);
    const value = match?.[2]?.trim();
    if (match && value) user[match[1]!.toLowerCase() as 'name' | 'email'] = value;
  }
  return user;
}

/** From `git config --get-regexp` lines (`remote.<name>.url <url>`): origin's URL, else the first remote's. */
function remoteUrlOf(lines: string | null): string | null {
  const remotes = (lines ?? '').split('\n').flatMap((line) => {
    const match = /^remote\.(.+)\.url (.+)$/.exec(line);
    return match ? [{ name: match[1]!, url: match[2]! }] : [];
  });
  return (remotes.find((remote) => remote.name === 'origin') ?? remotes[0])?.url ?? null;
}

/** The commit the jobs see, and how many commits its history has (null: more than counted). */
export interface Snapshot {
  sha: string;
  historyLength: number | null;
  /** The branch whose tip is the snapshot or its parent (HEAD's); null when HEAD is detached or the snapshot has no parent. */
  branch?: string | null;
}

/**
 * The commit the jobs see: HEAD itself when the working tree holds nothing else (or with
 * `committed`), so that CI_COMMIT_SHA is HEAD's; else a commit of the working tree (tracked
 * changes, untracked files not ignored) on top of HEAD, carrying HEAD's message, author and
 * committer. Either way a job's history is HEAD's, as its GIT_DEPTH cuts it on the server. In
 * a shallow or partial clone, or without a commit yet, the snapshot has no parent: a history
 * the clone does not hold whole is not one a job could fetch.
 */
export async function snapshotCommit(root: string, head: HeadInfo, committed: boolean): Promise<Snapshot> {
  if (committed && head.sha === null) throw new ExecError('--committed: the repository has no commit yet');
  const tree = committed ? head.tree : await stagedTree(root);
  const parent = head.historyIncomplete ? null : head.sha;
  if (parent !== null && tree === head.tree) return { sha: parent, historyLength: head.historyLength, branch: head.branch };
  const sha = (await git(root, ['commit-tree', ...(parent === null ? [] : ['-p', parent]), tree ?? ''], identityEnvironment(head), head.message)).trim();
  if (parent === null) return { sha, historyLength: 1, branch: null };
  return { sha, historyLength: head.historyLength === null ? null : head.historyLength + 1, branch: head.branch };
}

/**
 * The commit a ref or revision names in the user's repository (`rules:changes:compare_to`:
 * their `main`, `refs/tags/v1`, `origin/main` or a SHA), or null. Read there when a rule asks:
 * the snapshot's repository borrows these objects but holds none of the user's refs (its own
 * branches point at the snapshot).
 */
export async function resolveUserCommit(root: string, revision: string): Promise<string | null> {
  if (revision === '' || revision.startsWith('-')) return null;
  return gitOrNull(root, ['rev-parse', '--verify', '-q', '--end-of-options', `${revision}^{commit}`]);
}

/** The git tree of a commit (the snapshot's: the files every job starts from). */
export async function commitTree(root: string, sha: string): Promise<string> {
  return (await git(root, ['rev-parse', `${sha}^{tree}`])).trim();
}

/**
 * `git add -A` into a copy of the user's index (its stat cache spares hashing unchanged files).
 * The copy keeps the index's modification time, a millisecond earlier: git takes an entry whose
 * file is not older than the index as racily clean and hashes it again, so a file changed in the
 * second of its `git add` at the same size is seen. A copy dated now would trust that entry.
 */
async function stagedTree(root: string): Promise<string> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'gantry-exec-index-'));
  const index = path.join(scratch, 'index');
  try {
    const userIndex = path.resolve(root, (await git(root, ['rev-parse', '--git-path', 'index'])).trim());
    await copyIndex(userIndex, index);
    const env = { GIT_INDEX_FILE: index };
    await git(root, ['add', '-A', '--', '.'], env);
    return (await git(root, ['write-tree'], env)).trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function copyIndex(from: string, to: string): Promise<void> {
  try {
    const { mtimeMs } = await stat(from);
    await copyFile(from, to);
    const dated = (mtimeMs - 1) / 1000;
    await utimes(to, dated, dated);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function identityEnvironment(head: HeadInfo): Record<string, string> {
  const env: Record<string, string> = {
    GIT_AUTHOR_NAME: head.author.name || FALLBACK_IDENTITY.name,
    GIT_AUTHOR_EMAIL: head.author.email || FALLBACK_IDENTITY.email,
    GIT_COMMITTER_NAME: head.committer.name || FALLBACK_IDENTITY.name,
    GIT_COMMITTER_EMAIL: head.committer.email || FALLBACK_IDENTITY.email,
  };
  if (head.author.date) env.GIT_AUTHOR_DATE = head.author.date;
  if (head.committer.date) env.GIT_COMMITTER_DATE = head.committer.date;
  return env;
}

/**
 * Lends the user's object database to the bare repository at `gitDir` (its
 * `objects/info/alternates`): the snapshot's objects, which `git add` and `commit-tree` wrote
 * there, are then the repository's without a copy or a push. Git never writes into an
 * alternate: the user's repository is only read.
 */
export async function lendObjects(root: string, gitDir: string): Promise<string> {
  const objects = path.resolve(root, (await git(root, ['rev-parse', '--git-path', 'objects'])).trim());
  const info = path.join(gitDir, 'objects', 'info');
  await mkdir(info, { recursive: true });
  await appendFile(path.join(info, 'alternates'), `${objects}\n`);
  return objects;
}

/** A submodule a commit records: its `.gitmodules` name, path and URL, and the commit its gitlink names. */
export interface RecordedSubmodule {
  name: string;
  path: string;
  url: string;
  commit: string;
}

/**
 * The submodules `commit` records, read in the repository at `gitDir` (a working tree or a git
 * directory holding the commit): `.gitmodules` at that commit, each entry with a gitlink there.
 */
export async function recordedSubmodules(gitDir: string, commit: string): Promise<RecordedSubmodule[]> {
  const config = await gitOrNull(gitDir, ['config', '--blob', `${commit}:.gitmodules`, '--get-regexp', '^submodule\\..*\\.(path|url)$']);
  if (config === null) return [];
  const entries = new Map<string, { path?: string; url?: string }>();
  for (const line of config.split('\n')) {
    const match = /^submodule\.(.+)\.(path|url) (.+)$/.exec(line);
    if (!match) continue;
    const entry = entries.get(match[1]!) ?? {};
    entry[match[2] as 'path' | 'url'] = match[3]!;
    entries.set(match[1]!, entry);
  }
  const listed = [...entries].flatMap(([name, entry]) => (entry.path && entry.url ? [{ name, path: entry.path, url: entry.url }] : []));
  if (listed.length === 0) return [];
  const tree = await gitOrNull(gitDir, ['ls-tree', '-z', commit, '--', ...listed.map((entry) => entry.path)]);
  const gitlinks = new Map<string, string>();
  for (const record of (tree ?? '').split('\0')) {
    const match = /^160000 commit ([0-9a-f]{40,64})\t(.+)$/.exec(record);
    if (match) gitlinks.set(match[2]!, match[1]!);
  }
  return listed.flatMap((entry) => (gitlinks.has(entry.path) ? [{ ...entry, commit: gitlinks.get(entry.path)! }] : []));
}

/**
 * The git directory of a submodule checked out in the repository at `gitDir` that holds
 * `commit` (`.git/modules/<name>`, or the older `.git` inside the submodule's directory), or null.
 */
export async function submoduleGitDir(gitDir: string, workTree: string | null, submodule: RecordedSubmodule): Promise<string | null> {
  const modules = await gitOrNull(gitDir, ['rev-parse', '--path-format=absolute', '--git-path', `modules/${submodule.name}`]);
  const candidates = [modules, workTree === null ? null : path.join(workTree, submodule.path, '.git')];
  for (const candidate of candidates) {
    if (candidate === null) continue;
    if ((await gitOrNull(candidate, ['--git-dir=.', 'cat-file', '-e', `${submodule.commit}^{commit}`])) !== null) return candidate;
  }
  return null;
}
