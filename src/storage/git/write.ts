import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { GantryError } from '../../shared/errors.ts';
import { BlobBatch, BULK_GIT_ENVIRONMENT } from './blob-batch.ts';
import { IndexState } from './index-state.ts';
import type { History } from './history.ts';
import type { ObjectReader, RepositoryAccess } from './reader.ts';
import { cleanIdentity, compareAndSwapRef, REF_MESSAGES } from './refs.ts';
import { EMPTY_TREE, gitText, runGit, ZERO_OID } from './run.ts';
import type { GitCommit, GitCommitRequest, GitFileAction } from './types.ts';
import { checkCommitPath, isValidRefName } from './validate.ts';

export const COMMIT_MESSAGES = {
  fileExists: 'A file with this name already exists',
  fileMissing: "A file with this name doesn't exist",
  directoryExists: 'A directory with this name already exists',
  identicalContent: 'You are attempting to update a file with content identical to the current content',
  changedSinceEditing: 'You are attempting to update a file that has changed since you started editing it.',
  notOnBranch: 'You can only create or edit files when you are on a branch',
  cherryPickFailed:
    'Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.',
  revertFailed:
    'Sorry, we cannot revert this commit automatically. This commit may already have been reverted, or a more recent commit may have updated some of its content.',
} as const;

const REGULAR = '100644';
const EXECUTABLE = '100755';

/** At most this many `last_commit_id` checks (one history walk each) run at once. */
const LAST_COMMIT_CHECKS_AT_ONCE = 4;

type Identity = { name: string; email: string };

/** A `last_commit_id` to check once every action has been applied in memory. */
type LastCommitCheck = { filePath: string; lastCommitId: string };

/**
 * Commits written through a temporary index and published with a compare-and-swap update-ref.
 * A commit costs the same few git processes however many actions it has: the actions are
 * applied in memory, their blobs written by one fast-import, the index changed by one
 * update-index.
 */
export class CommitWriter {
  constructor(
    private readonly access: RepositoryAccess,
    private readonly reader: ObjectReader,
    private readonly history: History,
    private readonly temporaryDirectory: string,
  ) {}

  async commitFiles(request: GitCommitRequest): Promise<GitCommit> {
    if (!isValidRefName(request.branch)) throw new GantryError('GANTRY_E_REF_NAME_INVALID', REF_MESSAGES.invalidBranchName);
    for (const action of request.actions) {
      checkCommitPath(action.file_path);
      if (action.action === 'move') checkCommitPath(action.previous_path);
    }
    const { signal } = request;
    const gitDir = this.access.gitDir;
    const ref = `refs/heads/${request.branch}`;
    const tip = await this.reader.resolveCommit(ref);
    const parent = tip ?? (await this.startingPoint(request.startRef));

    return this.withTemporaryIndex(async (env, scratch) => {
      await runGit(gitDir, parent ? ['read-tree', parent] : ['read-tree', '--empty'], { env, signal });
      const listing = await runGit(gitDir, ['ls-files', '-s', '-z'], { env, signal });
      const state = IndexState.fromLsFiles(listing.stdout);
      const blobs = new BlobBatch();
      const checks: LastCommitCheck[] = [];
      for (const action of request.actions) this.apply(state, action, blobs, checks);
      await this.checkLastCommits(parent, checks, signal);
      await blobs.write(gitDir, scratch, signal);
      await runGit(gitDir, ['update-index', '-z', '--index-info'], { env, input: state.indexInfo(), signal });
      const tree = (await gitText(gitDir, ['write-tree'], { env, signal })).trim();
      const commit = await this.writeCommit(tree, parent ? [parent] : [], request.message, request.author, request.author, null, signal);
      // The last moment a departed client stops the commit: after it, the branch has moved.
      signal?.throwIfAborted();
      await this.publish(ref, request.branch, commit, tip);
      await this.pointHeadAtFirstBranch(request.branch);
      return this.readWritten(commit);
    });
  }

  /** Applies the changes of commit `id` on top of `branch`, keeping its author. */
  cherryPick(id: string, branch: string, committer: Identity): Promise<GitCommit> {
    return this.replay(id, branch, committer, 'pick');
  }

  /** Applies the inverse of commit `id` on top of `branch`, authored by `committer`. */
  revert(id: string, branch: string, committer: Identity): Promise<GitCommit> {
    return this.replay(id, branch, committer, 'revert');
  }

  private async replay(id: string, branch: string, committer: Identity, mode: 'pick' | 'revert'): Promise<GitCommit> {
    const source = await this.reader.commit(id);
    if (!source) throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND');
    const ref = `refs/heads/${branch}`;
    const tip = isValidRefName(branch) ? await this.reader.commit(ref) : null;
    if (!tip) throw new GantryError('GANTRY_E_BRANCH_NOT_FOUND');
    const failed = (): GantryError =>
      mode === 'pick'
        ? new GantryError('GANTRY_E_CHERRY_PICK_FAILED', COMMIT_MESSAGES.cherryPickFailed)
        : new GantryError('GANTRY_E_REVERT_FAILED', COMMIT_MESSAGES.revertFailed);
    const parent = source.parent_ids[0] ?? EMPTY_TREE;
    const [from, to] = mode === 'pick' ? [parent, source.id] : [source.id, parent];
    const patch = await runGit(this.access.gitDir, ['diff-tree', '-p', '--binary', '--full-index', '--no-color', '--no-ext-diff', from, to]);
    if (patch.stdout.length === 0) throw failed();

    return this.withTemporaryIndex(async (env) => {
      await runGit(this.access.gitDir, ['read-tree', tip.id], { env });
      const applied = await runGit(this.access.gitDir, ['apply', '--cached', '--3way', '--whitespace=nowarn', '-'], { env, cwd: env.GIT_WORK_TREE, input: patch.stdout, allowedExitCodes: [1, 128] });
      if (applied.exitCode !== 0) throw failed();
      const tree = (await gitText(this.access.gitDir, ['write-tree'], { env })).trim();
      if (tree === tip.tree_id) throw failed();
      const commit =
        mode === 'pick'
          ? await this.writeCommit(tree, [tip.id], `${source.message.trimEnd()}\n\n(cherry picked from commit ${source.id})`, source.author, committer, source.author.date)
          : await this.writeCommit(tree, [tip.id], `Revert "${source.title.trim()}"\n\nThis reverts commit ${source.id}`, committer, committer, null);
      await this.publish(ref, branch, commit, tip.id);
      return this.readWritten(commit);
    });
  }

  private async startingPoint(startRef: string | undefined): Promise<string | null> {
    if (startRef !== undefined) {
      const start = (await this.reader.resolveCommit(`refs/heads/${startRef}`)) ?? (await this.reader.resolveCommit(startRef));
      if (!start) throw new GantryError('GANTRY_E_REF_NOT_FOUND', REF_MESSAGES.invalidReference(startRef));
      return start;
    }
    const anyBranch = await gitText(this.access.gitDir, ['for-each-ref', '--count=1', '--format=%(refname)', 'refs/heads/']);
    if (anyBranch.trim() !== '') throw new GantryError('GANTRY_E_BRANCH_NOT_FOUND', COMMIT_MESSAGES.notOnBranch);
    return null;
  }

  /** Applies one action to the index in memory; new contents go to `blobs`, optimistic locks to `checks`. */
  private apply(state: IndexState, action: GitFileAction, blobs: BlobBatch, checks: LastCommitCheck[]): void {
    const filePath = action.file_path;
    const check = (checkedPath: string, lastCommitId: string | undefined): void => {
      if (lastCommitId) checks.push({ filePath: checkedPath, lastCommitId });
    };
    switch (action.action) {
      case 'create': {
        if (state.has(filePath) || state.fileAbove(filePath)) throw new GantryError('GANTRY_E_FILE_EXISTS', COMMIT_MESSAGES.fileExists);
        if (state.isDirectory(filePath)) throw new GantryError('GANTRY_E_FILE_EXISTS', COMMIT_MESSAGES.directoryExists);
        state.set(filePath, action.execute_filemode ? EXECUTABLE : REGULAR, blobs.add(action.content));
        return;
      }
      case 'update': {
        const current = state.get(filePath);
        if (!current) throw new GantryError('GANTRY_E_FILE_NOT_FOUND', COMMIT_MESSAGES.fileMissing);
        check(filePath, action.last_commit_id);
        const id = blobs.add(action.content);
        const mode = action.execute_filemode === undefined ? current.mode : action.execute_filemode ? EXECUTABLE : REGULAR;
        if (id === current.id && mode === current.mode) throw new GantryError('GANTRY_E_CONTENT_UNCHANGED', COMMIT_MESSAGES.identicalContent);
        state.set(filePath, mode, id);
        return;
      }
      case 'delete': {
        if (!state.has(filePath)) throw new GantryError('GANTRY_E_FILE_NOT_FOUND', COMMIT_MESSAGES.fileMissing);
        check(filePath, action.last_commit_id);
        state.remove(filePath);
        return;
      }
      case 'move': {
        const previous = state.get(action.previous_path);
        if (!previous) throw new GantryError('GANTRY_E_FILE_NOT_FOUND', COMMIT_MESSAGES.fileMissing);
        if (action.previous_path !== filePath && (state.has(filePath) || state.fileAbove(filePath))) throw new GantryError('GANTRY_E_FILE_EXISTS', COMMIT_MESSAGES.fileExists);
        check(action.previous_path, action.last_commit_id);
        const id = action.content === undefined ? previous.id : blobs.add(action.content);
        state.remove(action.previous_path);
        if (state.isDirectory(filePath)) throw new GantryError('GANTRY_E_FILE_EXISTS', COMMIT_MESSAGES.directoryExists);
        state.set(filePath, previous.mode, id);
        return;
      }
      case 'chmod': {
        const current = state.get(filePath);
        if (!current) throw new GantryError('GANTRY_E_FILE_NOT_FOUND', COMMIT_MESSAGES.fileMissing);
        state.set(filePath, action.execute_filemode ? EXECUTABLE : REGULAR, current.id);
        return;
      }
    }
  }

  /**
   * GitLab's optimistic lock: the last commit touching each path must be the one the editor
   * saw. One history walk per distinct path (cached per start commit), a few at a time.
   */
  private async checkLastCommits(parent: string | null, checks: readonly LastCommitCheck[], signal: AbortSignal | undefined): Promise<void> {
    if (!parent || checks.length === 0) return;
    const pending = [...new Map(checks.map((check) => [`${check.filePath}\0${check.lastCommitId.toLowerCase()}`, check])).values()];
    let failed = false;
    const worker = async (): Promise<void> => {
      for (let check = pending.pop(); check && !failed; check = pending.pop()) {
        signal?.throwIfAborted();
        const last = await this.history.lastCommitFor(parent, check.filePath);
        const given = check.lastCommitId.toLowerCase();
        if (!last || given.length < 7 || !last.id.startsWith(given)) failed = true;
      }
    };
    await Promise.all(Array.from({ length: Math.min(LAST_COMMIT_CHECKS_AT_ONCE, pending.length) }, worker));
    if (failed) throw new GantryError('GANTRY_E_FILE_CHANGED_SINCE_EDIT', COMMIT_MESSAGES.changedSinceEditing);
  }

  private async writeCommit(
    tree: string,
    parents: string[],
    message: string,
    author: Identity,
    committer: Identity,
    authorDate: string | null,
    signal?: AbortSignal,
  ): Promise<string> {
    const env: Record<string, string> = {
      GIT_AUTHOR_NAME: cleanIdentity(author.name),
      GIT_AUTHOR_EMAIL: cleanIdentity(author.email),
      GIT_COMMITTER_NAME: cleanIdentity(committer.name),
      GIT_COMMITTER_EMAIL: cleanIdentity(committer.email),
    };
    if (authorDate) env.GIT_AUTHOR_DATE = authorDate;
    const parentArgs = parents.flatMap((parent) => ['-p', parent]);
    return (await gitText(this.access.gitDir, ['commit-tree', tree, ...parentArgs], { env, input: message, signal })).trim();
  }

  private async publish(ref: string, branch: string, commit: string, expected: string | null): Promise<void> {
    const swapped = await compareAndSwapRef(this.access, ref, commit, expected ?? ZERO_OID, 'gantry: commit');
    if (!swapped) throw new GantryError('GANTRY_E_BRANCH_MOVED', REF_MESSAGES.branchMoved(branch));
  }

  /** The first branch of an empty repository becomes its default when HEAD names none. */
  private async pointHeadAtFirstBranch(branch: string): Promise<void> {
    const head = await runGit(this.access.gitDir, ['symbolic-ref', '-q', 'HEAD'], { allowedExitCodes: [1] });
    const headRef = head.stdout.toString('utf8').trim();
    if (headRef && (await this.reader.resolveCommit(headRef))) return;
    await runGit(this.access.gitDir, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
  }

  private async readWritten(id: string): Promise<GitCommit> {
    const commit = await this.reader.commit(id);
    if (!commit) throw new Error(`commit ${id} vanished after it was written`);
    return commit;
  }

  private withTemporaryIndex<T>(work: (env: Record<string, string>, scratch: string) => Promise<T>): Promise<T> {
    return withTemporaryIndex(this.temporaryDirectory, work);
  }
}

/** Runs `work` with a throw-away index (its environment) and a private scratch directory under `temporaryDirectory`. */
export async function withTemporaryIndex<T>(temporaryDirectory: string, work: (env: Record<string, string>, scratch: string) => Promise<T>): Promise<T> {
  await mkdir(temporaryDirectory, { recursive: true });
  const directory = await mkdtemp(path.join(temporaryDirectory, 'index-'));
  try {
    // `apply --cached --3way` (git 2.39) writes merged files to the current directory even
    // with --cached: callers run it inside this throw-away work tree.
    const workTree = path.join(directory, 'work-tree');
    await mkdir(workTree);
    return await work({ ...BULK_GIT_ENVIRONMENT, GIT_INDEX_FILE: path.join(directory, 'index'), GIT_WORK_TREE: workTree }, directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
