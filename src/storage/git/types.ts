import type { Readable } from 'node:stream';
import type { ProcessSpawner } from './spawner.ts';
import type { GitDiffOptions, GitDiffStream } from './types-diff.ts';
import type { GitClient, GitWorkQueue } from './work-queue.ts';

export type * from './types-diff.ts';

export type { GitClient } from './work-queue.ts';

/**
 * The one seam for git repositories. Only src/storage/git spawns git; everything else
 * goes through these interfaces. Object ids are full 40-hex SHA-1s; timestamps are ISO 8601
 * UTC with milliseconds. Revisions are branch names, tag names, full refs or SHAs; unknown
 * revisions resolve to null (never throw for "not found").
 */

export interface GitPerson {
  name: string;
  email: string;
  date: string;
}

/** One line of a file with the commit that last changed it (consecutive lines of one commit form a GitLab blame range). */
export interface GitBlameLine {
  commit: GitCommit;
  line: string;
  /** 1-based. */
  lineNumber: number;
}

export interface GitCommit {
  id: string;
  parent_ids: string[];
  tree_id: string;
  /** First line of the message. */
  title: string;
  /** The whole message, trailing newline kept as git stores it. */
  message: string;
  author: GitPerson;
  committer: GitPerson;
}

/** The files a commit added, modified and removed against its first parent (or the empty tree). */
export interface GitCommitFileChanges {
  added: string[];
  modified: string[];
  removed: string[];
}

export interface GitBranch {
  name: string;
  commit: GitCommit;
}

export interface GitTag {
  name: string;
  /** The object the tag ref points at (an annotated tag object or a commit). */
  target: string;
  commit: GitCommit;
  /** The annotation message; null for a lightweight tag. */
  message: string | null;
  tagger: GitPerson | null;
}

export interface GitTreeEntry {
  id: string;
  name: string;
  type: 'tree' | 'blob' | 'commit';
  /** Path from the repository root. */
  path: string;
  /** Octal mode as git prints it, e.g. "100644", "040000". */
  mode: string;
}

export interface GitBlobInfo {
  id: string;
  size: number;
  mode: string;
  path: string;
}

export interface GitComparison {
  commits: GitCommit[];
  diffs: GitDiffStream;
  mergeBase: string | null;
}

/** The outcome of merging two commits without touching any ref or worktree (merge-check.ts). */
export type MergeTreeResult =
  | { clean: true; tree: string }
  | { clean: false; conflictedPaths: string[]; reason: 'conflicts' | 'unrelated-histories' };

export interface GitCommitStats {
  additions: number;
  deletions: number;
  total: number;
}

export interface GitLogQuery {
  /** Revision to walk from; default branch when omitted. */
  ref?: string;
  /** Only commits touching this path. */
  path?: string;
  /**
   * `path` is a git pathspec whose wildcards match (`*`, `?`, `[...]`, `*` across slashes too),
   * as Gitaly takes a path without `literal_pathspec`; otherwise it is literal.
   */
  pathspec?: boolean;
  /** ISO 8601 bounds on the committer date. */
  since?: string;
  until?: string;
  /** Walk every branch and tag instead of one ref. */
  all?: boolean;
  /** Only commits whose author name or e-mail contains this text (taken literally, not as a pattern). */
  author?: string;
  /** Follow only the first parent of merge commits. */
  firstParent?: boolean;
  /** `topo`: git's topological order (no parent before all its children); else git's default. */
  order?: 'default' | 'topo';
  offset: number;
  limit: number;
}

export interface GitContributor {
  name: string;
  email: string;
  commits: number;
  additions: number;
  deletions: number;
}

export type GitArchiveFormat = 'tar.gz' | 'tar.bz2' | 'tar' | 'zip';

export type GitFileAction =
  | { action: 'create'; file_path: string; content: Buffer; execute_filemode?: boolean }
  | { action: 'update'; file_path: string; content: Buffer; last_commit_id?: string; execute_filemode?: boolean }
  | { action: 'delete'; file_path: string; last_commit_id?: string }
  | { action: 'move'; file_path: string; previous_path: string; content?: Buffer; last_commit_id?: string }
  | { action: 'chmod'; file_path: string; execute_filemode: boolean };

export interface GitCommitRequest {
  /** Branch to commit to; created when it does not exist yet (then startRef is its base). */
  branch: string;
  /** Branch or SHA to start a new branch from; ignored when `branch` exists. */
  startRef?: string;
  message: string;
  author: { name: string; email: string };
  actions: GitFileAction[];
  /** Aborting stops the commit: its git processes are killed and the branch does not move. */
  signal?: AbortSignal;
}

export interface GitIdentity {
  name: string;
  email: string;
}

/** How a merge request lands: a merge commit, a merge commit only when fast-forwardable (semi-linear), or a fast-forward. */
export type GitMergeMethod = 'merge' | 'rebase_merge' | 'ff';

export interface GitMergeRequest {
  targetBranch: string;
  /** The target tip the merge is computed on: the branch moves only while it still points here. */
  targetSha: string;
  /** The source tip to land; its objects must be in this repository. */
  sourceSha: string;
  method: GitMergeMethod;
  /** The merge commit's message (merge and rebase_merge). */
  mergeMessage: string;
  /** One commit with the source's changes on the merge base, landed instead of the source. */
  squash: { message: string; author: GitIdentity } | null;
  committer: GitIdentity;
  signal?: AbortSignal;
}

/**
 * `merged`: the target branch points at `tip` (the merge commit, or the fast-forwarded source or
 * squash commit). `target-moved`: the compare-and-swap lost, nothing changed; retry on the new tip.
 */
export type GitMergeOutcome =
  | { kind: 'merged'; tip: string; squashCommitSha: string | null }
  | { kind: 'conflicts'; conflictedPaths: string[] }
  | { kind: 'not-fast-forward' }
  | { kind: 'target-moved' };

/** Replays `branch`'s commits not in `onto` on top of it; the branch moves only while it still points at `branchSha`. */
export interface GitRebaseRequest {
  branch: string;
  branchSha: string;
  /** The commit to rebase onto (the target branch's tip); its objects must be in this repository. */
  onto: string;
  committer: GitIdentity;
}

/** `rebased`: the branch points at `tip`. `conflicts`: a commit did not apply, nothing moved. `branch-moved`: the compare-and-swap lost. */
export type GitRebaseOutcome = { kind: 'rebased'; tip: string } | { kind: 'conflicts' } | { kind: 'branch-moved' };

/**
 * Failures of writes a user can cause. The module throws GantryError (src/shared/errors.ts)
 * with a cause code and GitLab's message for: path traversal, a file that exists / does not
 * exist, identical content, stale last_commit_id, and a branch moved by someone else during
 * the write (compare-and-swap lost). Callers pass these through.
 */
export interface GitRepository {
  readonly path: string;

  isEmpty(): Promise<boolean>;
  /** Bytes the repository's objects take on disk (loose and packed). */
  sizeInBytes(): Promise<number>;
  /** The branch HEAD points at, when that branch exists. */
  defaultBranch(): Promise<string | null>;
  setDefaultBranch(branch: string): Promise<void>;
  /** Commit SHA a revision names, or null. */
  resolveCommit(revision: string): Promise<string | null>;

  branches(): Promise<GitBranch[]>;
  branch(name: string): Promise<GitBranch | null>;
  tags(): Promise<GitTag[]>;
  tag(name: string): Promise<GitTag | null>;

  commit(revision: string): Promise<GitCommit | null>;
  commits(ids: readonly string[]): Promise<Map<string, GitCommit>>;
  log(query: GitLogQuery): Promise<GitCommit[]>;
  /**
   * Commits reachable from `tip` and from none of `excluding` (revisions that do not resolve
   * are left out), newest first, at most `limit`: the new commits of a push.
   */
  newCommits(tip: string, excluding: readonly string[], limit: number): Promise<GitCommit[]>;
  /** The ids `newCommits` would read, without reading the commits. */
  newCommitIds(tip: string, excluding: readonly string[], limit: number): Promise<string[]>;
  countCommits(query: Omit<GitLogQuery, 'offset' | 'limit'>): Promise<number>;
  commitStats(id: string): Promise<GitCommitStats>;
  /**
   * Diff of a commit against its first parent (or the empty tree), expanded unless told
   * otherwise. Resolves once git listed the files (a path no checkout may create is a
   * GitContentError then); the caller must iterate or close the stream. Heavy: holds a work slot.
   */
  commitDiff(id: string, options?: GitDiffOptions): Promise<GitDiffStream>;
  /**
   * Commits reachable from `to` and not from `from`, newest first, plus the tree diff from..to
   * (from the merge base unless `straight`), not expanded. The caller must iterate or close `diffs`.
   */
  compare(from: string, to: string, straight: boolean): Promise<GitComparison>;
  /** Paths that differ between two revisions (`only:changes`, `rules:changes`), at most `limit`; null when either resolves to no commit. */
  changedPaths(from: string, to: string, limit?: number): Promise<string[] | null>;
  /**
   * Paths changed from the merge base of `base` and `history` to `to` (`rules:changes:compare_to`),
   * at most `limit`; none without a merge base, null when a revision resolves to no commit.
   */
  changedPathsSince(base: string, history: string, to: string, limit: number): Promise<string[] | null>;
  isAncestor(ancestor: string, descendant: string): Promise<boolean>;
  /** The best common ancestor of resolved commit ids (`git merge-base`), or null when none. */
  mergeBase(first: string, ...others: string[]): Promise<string | null>;
  /** Merges `theirs` into `ours` in memory: the merged tree, or the paths in conflict. Writes objects only, no ref. */
  mergeTree(ours: string, theirs: string, signal?: AbortSignal): Promise<MergeTreeResult>;
  /** Copies commit `id` from another repository (a fork's) unless it is here; no ref written. False when it could not (merge-request-refs.ts). */
  fetchCommitFrom(sourceGitDir: string, id: string): Promise<boolean>;
  /** Points `refs/merge-requests/<iid>/head` at commit `id`. */
  setMergeRequestHead(iid: number, id: string): Promise<void>;
  /** Points the pipeline's persistent ref `refs/pipelines/<id>` at its commit. */
  setPipelineRef(pipelineId: number, sha: string): Promise<void>;
  /** Removes `refs/pipelines/<id>` (gone already: nothing to do). */
  deletePipelineRef(pipelineId: number): Promise<void>;
  /** The tree diff of two commit ids under GitLab's limits, read as iterated (heavy: holds a work slot until read or closed). */
  diffBetween(from: string, to: string, options: GitDiffOptions): Promise<GitDiffStream>;
  /** Each commit's added, modified and removed paths against its first parent, at most `capPerCommit` per commit (push data). */
  commitFileChanges(commits: ReadonlyArray<{ id: string; parent_ids: readonly string[] }>, capPerCommit: number): Promise<Map<string, GitCommitFileChanges>>;
  /** Files that differ between two commit ids, counted no further than `cap + 1`. */
  countChangedFiles(from: string, to: string, cap: number): Promise<number>;
  /** Branch names whose tip is reachable from `target` (merged into it), but not those at `target`'s own commit, as GitLab's. */
  mergedBranches(target: string): Promise<string[]>;
  /** Branches and tags whose history contains the commit `id` (a full object id). */
  refsContaining(id: string): Promise<Array<{ type: 'branch' | 'tag'; name: string }>>;

  tree(revision: string, path: string, recursive: boolean): Promise<GitTreeEntry[] | null>;
  /** The blob at a path in a revision, or null. */
  blobAt(revision: string, path: string): Promise<GitBlobInfo | null>;
  blobSize(id: string): Promise<number | null>;
  readBlob(id: string): Promise<Buffer | null>;
  /**
   * Streams a blob without buffering it whole. With its size known and small, it is read
   * through the shared cat-file process instead of a process of its own.
   */
  streamBlob(id: string, size?: number): Readable;
  /** Last commit on `revision` that touched `path`. */
  lastCommitFor(revision: string, path: string, options?: { pathspec?: boolean }): Promise<GitCommit | null>;
  /**
   * The lines of the file at `revision` with the commit that last changed each, streamed in
   * batches (memory does not grow with the file); null when no such file. A file larger than the
   * manager's blame limit is refused (GANTRY_E_BLAME_TOO_LARGE) before git starts. Heavy: takes a work slot.
   */
  blame(revision: string, path: string, range?: { start: number; end: number }): Promise<AsyncIterable<GitBlameLine[]> | null>;
  contributors(ref?: string): Promise<GitContributor[]>;
  /** A streamed archive of a revision; `prefix` is the top directory name (GitLab: project-ref-sha). */
  archive(revision: string, format: GitArchiveFormat, prefix: string): Readable;
  /** A streamed tar of the bare repository (refs, then objects), consistent while pushes land. */
  snapshot(): Readable;
  /** The signature of a commit and the bytes it signs; 'missing' for no such commit. */
  commitSignature(revision: string): Promise<CommitSignature | 'missing' | 'unsigned'>;

  /** Writes a commit from file actions; CAS on the branch tip. Returns the new commit. */
  commitFiles(request: GitCommitRequest): Promise<GitCommit>;
  /** Cherry-picks a commit onto a branch; CAS on the branch tip. */
  cherryPick(id: string, branch: string, committer: { name: string; email: string }): Promise<GitCommit>;
  /** A commit on `branch` undoing commit `id` (`Revert "<title>"`), authored by `committer`. */
  revert(id: string, branch: string, committer: { name: string; email: string }): Promise<GitCommit>;
  /** Lands a merge request's source on a branch (merge commit, fast-forward, squash); CAS on the branch tip. */
  merge(request: GitMergeRequest): Promise<GitMergeOutcome>;
  /** Rebases a branch onto a commit (a merge request's source onto its target); CAS on the branch tip. */
  rebase(request: GitRebaseRequest): Promise<GitRebaseOutcome>;
  /** Creates a branch; returns false if it already exists. */
  createBranch(name: string, target: string): Promise<boolean>;
  /** Deletes a branch; returns false when it did not exist. */
  deleteBranch(name: string): Promise<boolean>;
  /** Creates a tag (annotated when message is given); returns false if it exists. */
  createTag(name: string, target: string, message: string | null, tagger: { name: string; email: string }): Promise<boolean>;
  deleteTag(name: string): Promise<boolean>;
  /** Creates tags on objects the repository holds (runner exec: the user's, through alternates); all or none, false when one exists. */
  importTags(tags: readonly { name: string; object: string }[]): Promise<boolean>;
  /** Creates branches on commits the repository holds (runner exec's other projects: yours, through alternates); all or none, false when one exists. */
  importBranches(branches: readonly { name: string; object: string }[]): Promise<boolean>;
}

export interface RepositoryCreateOptions {
  /** Create a first commit with README.md on this branch. */
  initializeWithReadme: boolean;
  defaultBranch: string;
  projectName: string;
  author: { name: string; email: string };
}

/** A repository built under a temporary name, waiting to be renamed into place. */
export interface StagedRepository {
  /** The branch HEAD names when it exists (README commit, fork of a non-empty repository); else null. */
  readonly defaultBranch: string | null;
  /** Renames it into `<projectId>.git` (which must not exist); removes it when that fails. */
  publish(projectId: number): Promise<void>;
  discard(): Promise<void>;
}

/** One repository directory as start-up reconciliation finds it (read from its files). */
export interface RepositoryState {
  projectId: number;
  gitDir: string;
  /** The branch HEAD names, whether or not it exists; null when HEAD is detached or unreadable. */
  head: string | null;
  /** Its branches, sorted. */
  branches: string[];
  /** The config file's text; null when missing. */
  config: string | null;
  /** Lock and quarantine files a killed git process left (relative paths), already removed. */
  removedLeftovers: string[];
  /** Files that exist but could not be read (`packed-refs: EISDIR`): the fields above may be incomplete. */
  unreadable: string[];
}

/** Bare repositories under `<dataDir>/repositories/<projectId>.git`, keyed by project id. */
export interface RepositoryManager {
  /** Creates `<projectId>.git` whole (stage + publish). */
  create(projectId: number, options: RepositoryCreateOptions): Promise<void>;
  /** Builds a new repository under a temporary name (see StagedRepository). */
  stage(options: RepositoryCreateOptions): Promise<StagedRepository>;
  /** Builds a copy of `sourceId`'s repository under a temporary name. */
  stageFork(sourceId: number): Promise<StagedRepository>;
  remove(projectId: number): Promise<void>;
  /** Copies the repository of `sourceId` (fork). */
  fork(sourceId: number, targetId: number): Promise<void>;
  /**
   * Start-up only, before any git work and while no other coordinator works in the root:
   * removes older versions' half-deleted leftovers, and reads every repository (stale lock
   * files and quarantines are removed on the way).
   */
  inventory(): Promise<{ removed: string[]; repositories: RepositoryState[] }>;
  /** The coordinator instance whose temporary files this manager writes (`<root>/.tmp/<instanceId>`). */
  readonly instanceId: string;
  /** Names under `<root>/.tmp`: instance ids, and older versions' leftovers. */
  temporaryOwners(): Promise<string[]>;
  /** Removes `<root>/.tmp/<owner>` (never this manager's own). */
  removeTemporaryFilesOf(owner: string): Promise<void>;
  /** Removes every repository's lock files last modified before `before` (ms since the epoch): a killed git process's. */
  removeStaleLocks(before: number): Promise<Array<{ projectId: number; path: string }>>;
  /** The config file every repository has, compared and written whole. */
  canonicalConfig(): Promise<string>;
  /** Replaces a repository's config file with the canonical one, atomically. */
  writeCanonicalConfig(projectId: number): Promise<void>;
  exists(projectId: number): Promise<boolean>;
  /** The repository of a project; heavy work it does for `client` queues under the client's key and stops when it goes. */
  open(projectId: number, client?: GitClient): GitRepository;
  /** The bounded, fair queue every heavy git operation (clone, archive, blame, diff) takes a slot of. */
  readonly work: GitWorkQueue;
  /** Starts git HTTP backends from a small helper process, so their forks never stall the event loop. */
  readonly spawner: ProcessSpawner;
  /** Commit-graph and occasional gc once writes to the repository have been quiet for a while. */
  scheduleHousekeeping(projectId: number): void;
  /** The same, now; `gc` forces a full repack with bitmaps, `prune` repacks all and prunes unreachable objects. Never throws. */
  runHousekeeping(projectId: number, options?: { gc?: boolean; prune?: boolean }): Promise<void>;
  /** Takes the repository's housekeeping lease (false: queued or running already); see housekeeping-lease.ts. */
  takeHousekeepingLease(projectId: number): Promise<boolean>;
  releaseHousekeepingLease(projectId: number): Promise<void>;
  /** Stops every long-lived git process (cat-file pools) and pending housekeeping. */
  close(): Promise<void>;
}

/** The signature of a commit and the bytes it signs: the commit object without its signature header. */
export interface CommitSignature {
  /** PGP (`-----BEGIN PGP SIGNATURE-----`), SSH or X509 (anything else, as GitLab classifies it). */
  type: 'PGP' | 'SSH' | 'X509';
  /** The armored signature. */
  signature: Buffer;
  signedData: Buffer;
  committerEmail: string;
}
