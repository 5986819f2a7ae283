/**
 * A build directory an earlier job of the slot used, brought back to what a new one would give
 * the next job (`runner exec`'s shell jobs): the earlier checkout's files stay where the next
 * checkout would write them again, and everything else goes. On a tree of thousands of files,
 * writing the clone is most of a job's cost (on ext4 without a journal, a file made soon after
 * many were deleted costs more still); a checkout over the kept files writes only those that
 * differ.
 */
import { lstat, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { runCollected } from '../../shared/process-spawner.ts';
import { removeTree } from '../../shared/remove-tree.ts';

/**
 * Empties `buildsDir`, but keeps the checkout at `projectDir` when `recyclable` and it can be
 * cleaned; answers whether it was kept. A kept checkout loses what git does not track
 * (`git clean -ffdx`: untracked and ignored files, other repositories inside it) and, in
 * `.git`, all but the index: settings, refs, hooks and the objects a job wrote. An index with
 * entries git would not check out again (assume-unchanged, skip-worktree), a link where a
 * directory belongs, or a clean that fails (a directory a job made read-only) empties the
 * directory instead.
 */
export async function recycleBuildDirectory(buildsDir: string, projectDir: string, recyclable: boolean): Promise<boolean> {
  const inside = path.relative(buildsDir, projectDir);
  const kept = recyclable && inside !== '' && !inside.startsWith('..') && !path.isAbsolute(inside) && (await keepCheckout(buildsDir, inside.split(path.sep)));
  if (!kept) {
    await removeTree(buildsDir);
    await mkdir(buildsDir, { recursive: true });
  }
  return kept;
}

async function keepCheckout(buildsDir: string, parts: string[]): Promise<boolean> {
  const projectDir = path.join(buildsDir, ...parts);
  const gitDir = path.join(projectDir, '.git');
  const [repository, index] = await Promise.all([lstat(gitDir).catch(() => null), lstat(path.join(gitDir, 'index')).catch(() => null)]);
  if (!repository?.isDirectory() || !index?.isFile()) return false;
  // What lies beside the project directory, at each level down to it.
  let directory = buildsDir;
  for (const part of parts) {
    const found = await lstat(directory).catch(() => null);
    if (!found?.isDirectory()) return false;
    const entries = await readdir(directory);
    await Promise.all(entries.filter((entry) => entry !== part).map((entry) => removeTree(path.join(directory, entry))));
    directory = path.join(directory, part);
  }
  // The job's settings go before git reads them: a `core.worktree` or `core.fsmonitor` of its
  // own must not steer the clean. HEAD, objects and refs stay while git needs a repository.
  await removeEntries(gitDir, ['index', 'HEAD', 'objects', 'refs']);
  const [flagged, cleaned] = await Promise.all([hasFlaggedEntries(gitDir, projectDir), clean(gitDir, projectDir)]);
  if (flagged || !cleaned) return false;
  await removeEntries(gitDir, ['index']);
  return true;
}

async function removeEntries(directory: string, keep: readonly string[]): Promise<void> {
  const entries = await readdir(directory);
  await Promise.all(entries.filter((entry) => !keep.includes(entry)).map((entry) => removeTree(path.join(directory, entry))));
}

/** git with this repository and work tree only, whatever the environment or the job's settings name. */
function gitIn(gitDir: string, projectDir: string, args: string[]) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !SCOPING_VARIABLES.has(key)));
  return runCollected({
    file: 'git',
    args: [`--git-dir=${gitDir}`, `--work-tree=${projectDir}`, '-c', 'core.fsmonitor=false', '-c', 'core.untrackedCache=false', ...args],
    cwd: projectDir,
    env: { ...env, GIT_TERMINAL_PROMPT: '0' },
  }).catch(() => null);
}

const SCOPING_VARIABLES = new Set(['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_COMMON_DIR', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT']);

async function clean(gitDir: string, projectDir: string): Promise<boolean> {
  const result = await gitIn(gitDir, projectDir, ['clean', '-ffdxq']);
  return result?.code === 0;
}

/**
 * Entries marked assume-unchanged (`git ls-files -v`: a lower-case tag) or skip-worktree (`S`):
 * a checkout trusts them and would leave a job's change to their files in place. An index git
 * cannot read counts as flagged.
 */
async function hasFlaggedEntries(gitDir: string, projectDir: string): Promise<boolean> {
  const result = await gitIn(gitDir, projectDir, ['ls-files', '-v', '-z']);
  if (result?.code !== 0) return true;
  return result.stdout
    .toString('utf8')
    .split('\0')
    .some((entry) => entry.length > 0 && (entry[0] === 'S' || (entry[0] >= 'a' && entry[0] <= 'z')));
}
