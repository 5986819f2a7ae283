import { clientOf } from './heavy.ts';
import type { RepositoryAccess } from './reader.ts';
import { gitFailure, runGit } from './run.ts';
import type { MergeTreeResult } from './types.ts';


/**
 * Merges `theirs` into `ours` in memory (`git merge-tree --write-tree`, git 2.38+): the tree a
 * merge commit would have, or the paths in conflict. Writes only objects, never a ref; the cost
 * follows the paths changed on both sides, not the repository's size. Heavy work: it takes a
 * slot of the repository's work queue like a diff does.
 */
export async function mergeTree(access: RepositoryAccess, ours: string, theirs: string, signal?: AbortSignal): Promise<MergeTreeResult> {
  const args = ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ours, theirs];
  const result = await access.work.run(clientOf(access), () => runGit(access.gitDir, args, { allowedExitCodes: [1, 128], lowPriority: true, signal }));
  if (result.exitCode === 128) {
    if (/unrelated histories/i.test(result.stderr)) return { clean: false, conflictedPaths: [], reason: 'unrelated-histories' };
    throw gitFailure(args, result.exitCode, result.stderr);
  }
  const [tree = '', ...rest] = result.stdout.toString('utf8').split('\0');
  if (result.exitCode === 0) return { clean: true, tree: tree.trim() };
  const conflictedPaths = [...new Set(rest.filter((entry) => entry !== ''))];
  return { clean: false, conflictedPaths, reason: 'conflicts' };
}
