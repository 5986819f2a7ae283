import { clientOf } from './heavy.ts';
import type { RepositoryAccess } from './reader.ts';
import { EMPTY_TREE, GitCommandError, streamGit } from './run.ts';
import type { GitCommitFileChanges } from './types.ts';

type CommitIds = ReadonlyArray<{ id: string; parent_ids: readonly string[] }>;

const OBJECT_ID = /^[0-9a-f]{40}$/;
const DIFF_ARGS = ['-r', '-z', '--name-status', '--no-renames', '--no-ext-diff', '--no-textconv'];

/**
 * The file lists of each commit (GitLab's push data `added`/`modified`/`removed`), against its
 * first parent, renames as a removal and an addition, in one work slot. One `git diff-tree
 * --stdin` lists every commit; each commit's lists stop at `capPerCommit` paths: a commit that
 * reaches it stops that process (a commit touching a million files costs no more than its first
 * names), and the commits after it are listed one process each, each stopped at the cap too. A
 * commit that does not resolve gets empty lists.
 */
export async function commitFileChanges(access: RepositoryAccess, commits: CommitIds, capPerCommit: number): Promise<Map<string, GitCommitFileChanges>> {
  return access.work.run(clientOf(access), async () => {
    const changes = new Map(commits.map((commit) => [commit.id, emptyLists()]));
    if (commits.length === 0) return changes;
    const listed = await allAtOnce(access, commits, capPerCommit, changes);
    const rest = listed === 'all' ? [] : commits.slice(listed === 'failed' ? 0 : commits.findIndex((commit) => commit.id === listed) + 1);
    for (const commit of rest) changes.set(commit.id, await oneCommit(access, commit.parent_ids[0] ?? EMPTY_TREE, commit.id, capPerCommit));
    return changes;
  });
}

const emptyLists = (): GitCommitFileChanges => ({ added: [], modified: [], removed: [] });

function add(lists: GitCommitFileChanges, status: string, path: string): void {
  (status === 'A' ? lists.added : status === 'D' ? lists.removed : lists.modified).push(path);
}

/** `-z` output: NUL-terminated fields, which may span chunks. */
async function* fields(output: AsyncIterable<Buffer>): AsyncGenerator<string> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of output) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let start = 0;
    for (let at = pending.indexOf(0); at >= 0; at = pending.indexOf(0, start)) {
      yield pending.subarray(start, at).toString('utf8');
      start = at + 1;
    }
    pending = pending.subarray(start);
  }
}

/**
 * Every commit in one process (a merge against its first parent); each commit's output starts
 * with its id. 'all' when every commit was read, the id of the commit that reached the cap
 * (the process is stopped there), or 'failed' (an unknown commit among them).
 */
async function allAtOnce(access: RepositoryAccess, commits: CommitIds, cap: number, changes: Map<string, GitCommitFileChanges>): Promise<string | 'all' | 'failed'> {
  const output = streamGit(access.gitDir, ['diff-tree', '--stdin', '--root', '--diff-merges=first-parent', ...DIFF_ARGS], {
    lowPriority: true,
    signal: access.client?.signal,
    input: commits.map((commit) => `${commit.id}\n`).join(''),
  });
  let current: { id: string; lists: GitCommitFileChanges; count: number } | null = null;
  let status: string | null = null;
  try {
    for await (const field of fields(output as AsyncIterable<Buffer>)) {
      if (status === null && OBJECT_ID.test(field)) {
        const lists = changes.get(field);
        current = lists ? { id: field, lists, count: 0 } : null;
      } else if (status === null) {
        status = field;
      } else {
        if (current) {
          add(current.lists, status, field);
          current.count += 1;
          if (current.count >= cap) return current.id;
        }
        status = null;
      }
    }
    return 'all';
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    for (const commit of commits) changes.set(commit.id, emptyLists());
    return 'failed';
  } finally {
    output.destroy();
  }
}

async function oneCommit(access: RepositoryAccess, parent: string, id: string, cap: number): Promise<GitCommitFileChanges> {
  const lists = emptyLists();
  const output = streamGit(access.gitDir, ['diff-tree', ...DIFF_ARGS, parent, id], { lowPriority: true, signal: access.client?.signal });
  let status: string | null = null;
  let count = 0;
  try {
    for await (const field of fields(output as AsyncIterable<Buffer>)) {
      if (status === null) {
        status = field;
        continue;
      }
      add(lists, status, field);
      status = null;
      count += 1;
      if (count >= cap) return lists;
    }
    return lists;
  } catch (error) {
    // An unknown commit (gone since the push): no lists rather than no push data.
    if (error instanceof GitCommandError) return emptyLists();
    throw error;
  } finally {
    output.destroy();
  }
}
