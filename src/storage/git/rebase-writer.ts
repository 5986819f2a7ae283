import type { ObjectReader, RepositoryAccess } from './reader.ts';
import { cleanIdentity, compareAndSwapRef } from './refs.ts';
import { EMPTY_TREE, gitText, runGit, streamGit } from './run.ts';
import type { GitCommit, GitIdentity, GitRebaseOutcome, GitRebaseRequest } from './types.ts';
import { withTemporaryIndex } from './write.ts';

/**
 * Rebases a branch onto a commit without a worktree, as `git rebase` would: the branch's commits
 * not in `onto` (merge commits left out, oldest first) are replayed one by one in a throw-away
 * index (each commit's patch applied with a three-way fallback), keeping their authors and
 * messages, with the rebaser as committer; a commit whose change is already there is dropped.
 * The branch moves with one compare-and-swap, so a push meanwhile wins and nothing is lost.
 */
export class RebaseWriter {
  constructor(
    private readonly access: RepositoryAccess,
    private readonly reader: ObjectReader,
    private readonly temporaryDirectory: string,
  ) {}

  async rebase(request: GitRebaseRequest): Promise<GitRebaseOutcome> {
    const { gitDir } = this.access;
    const listing = await gitText(gitDir, ['rev-list', '--reverse', '--topo-order', '--no-merges', `${request.onto}..${request.branchSha}`]);
    const ids = listing.split('\n').filter((id) => id !== '');
    const onto = await this.reader.commit(request.onto);
    if (!onto) return { kind: 'conflicts' };
    const tip = await withTemporaryIndex(this.temporaryDirectory, async (env) => {
      await runGit(gitDir, ['read-tree', onto.id], { env });
      let current = { id: onto.id, tree: onto.tree_id };
      // One commit read at a time: a long branch costs time, not memory.
      for (const id of ids) {
        const commit = await this.reader.commit(id);
        if (!commit) return null;
        const replayed = await this.replay(commit, current, request.committer, env);
        if (replayed === null) return null;
        current = replayed;
      }
      return current.id;
    });
    if (tip === null) return { kind: 'conflicts' };
    const swapped = await compareAndSwapRef(this.access, `refs/heads/${request.branch}`, tip, request.branchSha, 'gantry: rebase');
    return swapped ? { kind: 'rebased', tip } : { kind: 'branch-moved' };
  }

  /** One commit on top of `current` in the index of `env`: the new commit and tree, the same when its change is there already, null on a conflict. */
  private async replay(commit: GitCommit, current: { id: string; tree: string }, committer: GitIdentity, env: Record<string, string>): Promise<{ id: string; tree: string } | null> {
    const { gitDir } = this.access;
    const parent = commit.parent_ids[0];
    const parentTree = parent ? (await this.reader.commit(parent))?.tree_id : EMPTY_TREE;
    // A commit that changes nothing has an empty patch, which `git apply` refuses: it is dropped.
    if (parentTree === commit.tree_id) return current;
    // The patch streams from one git into the other: a commit's diff is never held whole here.
    const patch = streamGit(gitDir, ['diff-tree', '-p', '--binary', '--full-index', '--no-color', '--no-ext-diff', parent ?? EMPTY_TREE, commit.id]);
    const applied = await runGit(gitDir, ['apply', '--cached', '--3way', '--whitespace=nowarn', '-'], { env, cwd: env.GIT_WORK_TREE, input: patch, allowedExitCodes: [1, 128] });
    if (applied.exitCode !== 0) return null;
    const tree = (await gitText(gitDir, ['write-tree'], { env })).trim();
    if (tree === current.tree) return current;
    const identities = {
      GIT_AUTHOR_NAME: cleanIdentity(commit.author.name),
      GIT_AUTHOR_EMAIL: cleanIdentity(commit.author.email),
      GIT_AUTHOR_DATE: commit.author.date,
      GIT_COMMITTER_NAME: cleanIdentity(committer.name),
      GIT_COMMITTER_EMAIL: cleanIdentity(committer.email),
    };
    // The message as git stored it, byte for byte: a rebased commit differs only in parent and committer.
    const id = (await gitText(gitDir, ['commit-tree', tree, '-p', current.id], { env: identities, input: commit.message })).trim();
    return { id, tree };
  }
}
