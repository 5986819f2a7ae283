import { clientOf } from './heavy.ts';
import type { RepositoryAccess } from './reader.ts';
import { EMPTY_TREE, GitCommandError, streamGit } from './run.ts';
import type { GitCommitFileChanges } from './types.ts';


/**
 * The file lists of each commit (GitLab's push data `added`/`modified`/`removed`): one
 * `git diff-tree` per commit, all in one work slot, renames as a removal and an addition. Each
 * commit's lists stop at `capPerCommit` paths in all: git is stopped there, so a commit
 * touching a million files costs no more than its first names. A commit that does not resolve
 * gets empty lists.
 */
export async function commitFileChanges(
  access: RepositoryAccess,
  commits: ReadonlyArray<{ id: string; parent_ids: readonly string[] }>,
  capPerCommit: number,
): Promise<Map<string, GitCommitFileChanges>> {
  return access.work.run(clientOf(access), async () => {
    const changes = new Map<string, GitCommitFileChanges>();
    for (const commit of commits) changes.set(commit.id, await oneCommit(access, commit.parent_ids[0] ?? EMPTY_TREE, commit.id, capPerCommit));
    return changes;
  });
}

async function oneCommit(access: RepositoryAccess, parent: string, id: string, cap: number): Promise<GitCommitFileChanges> {
  const changes: GitCommitFileChanges = { added: [], modified: [], removed: [] };
  const output = streamGit(access.gitDir, ['diff-tree', '-r', '-z', '--name-status', '--no-renames', '--no-ext-diff', '--no-textconv', parent, id], {
    lowPriority: true,
    signal: access.client?.signal,
  });
  // `-z` output: status NUL path NUL, repeated; a field may span chunks.
  let pending: Buffer = Buffer.alloc(0);
  let status: string | null = null;
  let count = 0;
  try {
    for await (const chunk of output as AsyncIterable<Buffer>) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let start = 0;
      for (let at = pending.indexOf(0); at >= 0; at = pending.indexOf(0, start)) {
        const field = pending.subarray(start, at).toString('utf8');
        start = at + 1;
        if (status === null) {
          status = field;
          continue;
        }
        const list = status === 'A' ? changes.added : status === 'D' ? changes.removed : changes.modified;
        list.push(field);
        status = null;
        count += 1;
        if (count >= cap) return changes;
      }
      pending = pending.subarray(start);
    }
    return changes;
  } catch (error) {
    // An unknown commit (gone since the push): no lists rather than no push data.
    if (error instanceof GitCommandError) return changes;
    throw error;
  } finally {
    output.destroy();
  }
}
