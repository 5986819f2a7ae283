import type { ObjectReader, RepositoryAccess } from './reader.ts';
import { mergeTree } from './merge-check.ts';
import { cleanIdentity, compareAndSwapRef } from './refs.ts';
import { gitText, runGit } from './run.ts';
import type { GitIdentity, GitMergeOutcome, GitMergeRequest } from './types.ts';

/**
 * Lands a merge request's source on its target branch without a worktree: a squash commit
 * (`commit-tree` of the source's tree on the merge base), then a merge commit of the in-memory
 * merged tree (`merge-tree --write-tree`) or a fast-forward, published with one compare-and-swap
 * update-ref. Nothing but objects is written until that swap, so a lost race leaves no trace
 * but unreachable objects.
 */
export class MergeWriter {
  constructor(
    private readonly access: RepositoryAccess,
    private readonly reader: ObjectReader,
  ) {}

  async merge(request: GitMergeRequest): Promise<GitMergeOutcome> {
    const { targetSha, signal } = request;
    let source = request.sourceSha;
    let squashCommitSha: string | null = null;
    if (request.squash) {
      const base = await this.mergeBase(targetSha, source);
      if (base === null) return { kind: 'conflicts', conflictedPaths: [] };
      const tree = await this.treeOf(source);
      squashCommitSha = await this.writeCommit(tree, [base], request.squash.message, request.squash.author, request.committer, signal);
      source = squashCommitSha;
    }
    let tip: string;
    if (request.method === 'merge') {
      const merged = await mergeTree(this.access, targetSha, source, signal);
      if (!merged.clean) return { kind: 'conflicts', conflictedPaths: merged.conflictedPaths };
      tip = await this.writeCommit(merged.tree, [targetSha, source], request.mergeMessage, request.committer, request.committer, signal);
    } else {
      if (!(await this.isAncestor(targetSha, source))) return { kind: 'not-fast-forward' };
      tip =
        request.method === 'ff'
          ? source
          : await this.writeCommit(await this.treeOf(source), [targetSha, source], request.mergeMessage, request.committer, request.committer, signal);
    }
    signal?.throwIfAborted();
    const swapped = await compareAndSwapRef(this.access, `refs/heads/${request.targetBranch}`, tip, targetSha, 'gantry: merge');
    if (!swapped) return { kind: 'target-moved' };
    return { kind: 'merged', tip, squashCommitSha };
  }

  private async mergeBase(first: string, second: string): Promise<string | null> {
    const result = await runGit(this.access.gitDir, ['merge-base', first, second], { allowedExitCodes: [1] });
    return result.exitCode === 0 ? result.stdout.toString('utf8').trim() : null;
  }

  private async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const result = await runGit(this.access.gitDir, ['merge-base', '--is-ancestor', ancestor, descendant], { allowedExitCodes: [1] });
    return result.exitCode === 0;
  }

  private async treeOf(commitId: string): Promise<string> {
    const commit = await this.reader.commit(commitId);
    if (!commit) throw new Error(`commit ${commitId} is missing`);
    return commit.tree_id;
  }

  private async writeCommit(tree: string, parents: readonly string[], message: string, author: GitIdentity, committer: GitIdentity, signal: AbortSignal | undefined): Promise<string> {
    const env = {
      GIT_AUTHOR_NAME: cleanIdentity(author.name),
      GIT_AUTHOR_EMAIL: cleanIdentity(author.email),
      GIT_COMMITTER_NAME: cleanIdentity(committer.name),
      GIT_COMMITTER_EMAIL: cleanIdentity(committer.email),
    };
    const body = message.endsWith('\n') ? message : `${message}\n`;
    return (await gitText(this.access.gitDir, ['commit-tree', tree, ...parents.flatMap((parent) => ['-p', parent])], { env, input: body, signal })).trim();
  }
}
