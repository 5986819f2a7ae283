import { DIFF_LIMITS } from './diff-limits.ts';
import { openDiff } from './diff.ts';
import { clientOf, reportingContentErrors } from './heavy.ts';
import type { RepositoryAccess } from './reader.ts';
import { runGit, streamGit } from './run.ts';
import type { GitDiffOptions, GitDiffStream } from './types-diff.ts';

/**
 * The git side of merge requests: GitLab's `refs/merge-requests/<iid>/head` in the target
 * repository (so anyone who may read the project can fetch a request's head, a fork's
 * included), the fork's commits copied in, and the diff and file count of base..head.
 */

/** GitLab's ref for a request's source head; pushes to refs/merge-requests/ are refused (hooks.ts). */
export function mergeRequestHeadRef(iid: number): string {
  return `refs/merge-requests/${iid}/head`;
}

/** A fork's fetch gets this long; past it git is killed and the refresh keeps the request's old head. */
export const FORK_FETCH_BUDGET_MS = 60_000;

const COMMIT_ID = /^[0-9a-f]{40}$/;

/**
 * Copies commit `id` and what it needs from another repository (a fork) into this one, unless
 * it is here already. No ref is written and FETCH_HEAD is not touched; git negotiates, so only
 * the objects missing here travel. A heavy piece of work: it takes a slot of the work queue.
 * False when the source has no such commit or the budget ran out.
 */
export async function fetchCommitFrom(access: RepositoryAccess, sourceGitDir: string, id: string, budgetMs = FORK_FETCH_BUDGET_MS): Promise<boolean> {
  if (!COMMIT_ID.test(id)) return false;
  if (await hasCommit(access, id)) return true;
  const signal = AbortSignal.timeout(budgetMs);
  const args = ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', '--no-auto-gc', sourceGitDir, id];
  try {
    const result = await access.work.run(clientOf(access), () => runGit(access.gitDir, args, { allowedExitCodes: [1, 128], lowPriority: true, signal }));
    return result.exitCode === 0 && (await hasCommit(access, id));
  } catch (error) {
    if (signal.aborted) return false;
    throw error;
  }
}

async function hasCommit(access: RepositoryAccess, id: string): Promise<boolean> {
  const result = await runGit(access.gitDir, ['cat-file', '-e', `${id}^{commit}`], { allowedExitCodes: [1, 128] });
  return result.exitCode === 0;
}

/** Points `refs/merge-requests/<iid>/head` at commit `id` (created or moved; the last refresh wins). */
export async function setMergeRequestHead(access: RepositoryAccess, iid: number, id: string): Promise<void> {
  if (!Number.isSafeInteger(iid) || iid < 1 || !COMMIT_ID.test(id)) throw new Error(`invalid merge request head ${iid} ${id}`);
  await runGit(access.gitDir, ['update-ref', '-m', 'gantry: merge request head', mergeRequestHeadRef(iid), id]);
}

/**
 * The tree diff `from..to` of two commit ids (a request's base and head) under GitLab's diff
 * limits, read as it is iterated. Heavy: git runs in a work slot until the diff is read or closed.
 */
export async function diffBetween(access: RepositoryAccess, from: string, to: string, options: GitDiffOptions): Promise<GitDiffStream> {
  return reportingContentErrors(access, 'diff', async () => {
    const slot = await access.work.acquire(clientOf(access));
    return openDiff(access, from, to, { expanded: options.expanded, slot, limits: DIFF_LIMITS });
  });
}

/**
 * How many files differ from..to (renames count once, as in the diff), counting no further than
 * `cap + 1`: git is stopped there, so a huge diff costs no more than its first files' names.
 */
export async function countChangedFiles(access: RepositoryAccess, from: string, to: string, cap: number): Promise<number> {
  return access.work.run(clientOf(access), async () => {
    const output = streamGit(access.gitDir, ['diff', '--name-only', '-z', '-M', '--no-ext-diff', '--no-textconv', from, to], { lowPriority: true, signal: access.client?.signal });
    let count = 0;
    try {
      for await (const chunk of output as AsyncIterable<Buffer>) {
        for (let at = chunk.indexOf(0); at >= 0; at = chunk.indexOf(0, at + 1)) count += 1;
        if (count > cap) return cap + 1;
      }
      return count;
    } finally {
      output.destroy();
    }
  });
}
