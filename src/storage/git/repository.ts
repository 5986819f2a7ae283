import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { GantryError } from '../../shared/errors.ts';
import { unlessMissing } from '../fs/durable.ts';
import { archiveStream } from './archive.ts';
import { blameLines } from './blame.ts';
import { isDangerousEntryName, refuseDangerousPaths } from './content.ts';
import { heavyIteration, reportingContentErrors } from './heavy.ts';
import { History } from './history.ts';
import { ObjectReader, type RepositoryAccess } from './reader.ts';
import { REF_MESSAGES, RefWriter } from './refs.ts';
import { gitText, runGit, streamGit } from './run.ts';
import type {
  CommitSignature,
  GitArchiveFormat,
  GitBlameLine,
  GitBlobInfo,
  GitBranch,
  GitCommit,
  GitCommitFileChanges,
  GitCommitRequest,
  GitCommitStats,
  GitComparison,
  GitContributor,
  GitDiffOptions,
  GitDiffStream,
  GitLogQuery,
  GitMergeOutcome,
  GitMergeRequest,
  GitRepository,
  GitTag,
  GitTreeEntry,
  MergeTreeResult,
  GitRebaseOutcome,
  GitRebaseRequest,
} from './types.ts';
import { isValidLookupPath, isValidRefName, normalizeLookupPath } from './validate.ts';
import { CommitWriter } from './write.ts';
import { mergeTree } from './merge-check.ts';
import { commitFileChanges } from './commit-files.ts';
import { countChangedFiles, diffBetween, fetchCommitFrom, setMergeRequestHead } from './merge-request-refs.ts';
import { MergeWriter } from './merge-writer.ts';
import { RebaseWriter } from './rebase-writer.ts';
import { deletePipelineRef, setPipelineRef } from './pipeline-refs.ts';
import { readCommitSignature } from './signature.ts';
import { snapshotStream } from './snapshot.ts';

/** Blobs up to this size are read through the shared cat-file process. */
const SHARED_READ_LIMIT = 1024 * 1024;
/** Files larger than this are not blamed unless the manager says otherwise. */
export const DEFAULT_BLAME_MAX_BYTES = 10 * 1024 * 1024;

/** One bare repository: object reads through cat-file, walks through rev-list, writes with CAS. */
export class BareRepository implements GitRepository {
  readonly path: string;
  private readonly reader: ObjectReader;
  private readonly history: History;
  private readonly refs: RefWriter;
  private readonly writer: CommitWriter;
  private readonly merger: MergeWriter;

  /** `temporaryDirectory`: where commits build their throw-away index (inside the data directory). */
  constructor(
    private readonly access: RepositoryAccess,
    private readonly temporaryDirectory: string,
  ) {
    this.path = access.gitDir;
    this.reader = new ObjectReader(access);
    this.history = new History(access, this.reader);
    this.refs = new RefWriter(access, this.reader);
    this.writer = new CommitWriter(access, this.reader, this.history, temporaryDirectory);
    this.merger = new MergeWriter(access, this.reader);
  }

  async isEmpty(): Promise<boolean> {
    const output = await gitText(this.path, ['for-each-ref', '--count=1', '--format=%(refname)', 'refs/heads/']);
    return output.trim() === '';
  }

  async sizeInBytes(): Promise<number> {
    const output = await gitText(this.path, ['count-objects', '-v']);
    const kib = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(output)?.[1] ?? 0);
    return (kib('size') + kib('size-pack')) * 1024;
  }

  async defaultBranch(): Promise<string | null> {
    const head = await unlessMissing(readFile(path.join(this.path, 'HEAD'), 'utf8'), '');
    const match = /^ref: refs\/heads\/(.+)$/m.exec(head);
    if (!match) return null;
    const branch = match[1]!.trim();
    return (await this.reader.resolveCommit(`refs/heads/${branch}`)) ? branch : null;
  }

  async setDefaultBranch(branch: string): Promise<void> {
    if (!isValidRefName(branch)) throw new GantryError('GANTRY_E_REF_NAME_INVALID', REF_MESSAGES.invalidBranchName);
    await runGit(this.path, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
  }

  resolveCommit(revision: string): Promise<string | null> {
    return this.reader.resolveCommit(revision);
  }

  async branches(): Promise<GitBranch[]> {
    const refs = await this.listRefs('refs/heads/');
    const commits = await this.reader.commitList(refs.map(([, id]) => id));
    const byId = new Map(commits.map((commit) => [commit.id, commit]));
    return refs.flatMap(([name, id]) => {
      const commit = byId.get(id);
      return commit ? [{ name, commit }] : [];
    });
  }

  async branch(name: string): Promise<GitBranch | null> {
    if (!isValidRefName(name)) return null;
    const commit = await this.reader.commit(`refs/heads/${name}`);
    return commit ? { name, commit } : null;
  }

  async tags(): Promise<GitTag[]> {
    const refs = await this.listRefs('refs/tags/');
    const tags = await Promise.all(refs.map(([name, target]) => this.describeTag(name, target)));
    return tags.filter((tag): tag is GitTag => tag !== null);
  }

  async tag(name: string): Promise<GitTag | null> {
    if (!isValidRefName(name)) return null;
    const target = await this.reader.info(`refs/tags/${name}`);
    return target ? this.describeTag(name, target.id) : null;
  }

  commit(revision: string): Promise<GitCommit | null> {
    return this.reader.commit(revision);
  }

  async commits(ids: readonly string[]): Promise<Map<string, GitCommit>> {
    const commits = await this.reader.commitList([...new Set(ids)]);
    return new Map(commits.map((commit) => [commit.id, commit]));
  }

  log(query: GitLogQuery): Promise<GitCommit[]> {
    return this.history.log(query);
  }

  newCommits(tip: string, excluding: readonly string[], limit: number): Promise<GitCommit[]> {
    return this.history.newCommits(tip, excluding, limit);
  }

  newCommitIds(tip: string, excluding: readonly string[], limit: number): Promise<string[]> {
    return this.history.newCommitIds(tip, excluding, limit);
  }

  countCommits(query: Omit<GitLogQuery, 'offset' | 'limit'>): Promise<number> {
    return this.history.countCommits(query);
  }

  commitStats(id: string): Promise<GitCommitStats> {
    return this.history.commitStats(id);
  }

  commitDiff(id: string, options?: GitDiffOptions): Promise<GitDiffStream> {
    return this.history.commitDiff(id, options);
  }

  compare(from: string, to: string, straight: boolean): Promise<GitComparison> {
    return this.history.compare(from, to, straight);
  }

  changedPaths(from: string, to: string, limit?: number): Promise<string[] | null> {
    return this.history.changedPaths(from, to, limit);
  }

  changedPathsSince(base: string, history: string, to: string, limit: number): Promise<string[] | null> {
    return this.history.changedPathsSince(base, history, to, limit);
  }

  isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    return this.history.isAncestor(ancestor, descendant);
  }

  mergeBase(first: string, ...others: string[]): Promise<string | null> {
    return this.history.mergeBase(first, ...others);
  }

  mergeTree(ours: string, theirs: string, signal?: AbortSignal): Promise<MergeTreeResult> {
    return mergeTree(this.access, ours, theirs, signal);
  }

  fetchCommitFrom(sourceGitDir: string, id: string): Promise<boolean> {
    return fetchCommitFrom(this.access, sourceGitDir, id);
  }

  setMergeRequestHead(iid: number, id: string): Promise<void> {
    return setMergeRequestHead(this.access, iid, id);
  }

  setPipelineRef(pipelineId: number, sha: string): Promise<void> {
    return setPipelineRef(this.access, pipelineId, sha);
  }

  deletePipelineRef(pipelineId: number): Promise<void> {
    return deletePipelineRef(this.access, pipelineId);
  }

  diffBetween(from: string, to: string, options: GitDiffOptions): Promise<GitDiffStream> {
    return diffBetween(this.access, from, to, options);
  }

  commitFileChanges(commits: ReadonlyArray<{ id: string; parent_ids: readonly string[] }>, capPerCommit: number): Promise<Map<string, GitCommitFileChanges>> {
    return commitFileChanges(this.access, commits, capPerCommit);
  }

  countChangedFiles(from: string, to: string, cap: number): Promise<number> {
    return countChangedFiles(this.access, from, to, cap);
  }

  merge(request: GitMergeRequest): Promise<GitMergeOutcome> {
    return this.merger.merge(request);
  }

  rebase(request: GitRebaseRequest): Promise<GitRebaseOutcome> {
    return new RebaseWriter(this.access, this.reader, this.temporaryDirectory).rebase(request);
  }

  mergedBranches(target: string): Promise<string[]> {
    return this.history.mergedBranches(target);
  }

  /** Branches and tags whose history contains the commit `id` (a full object id). */
  refsContaining(id: string): Promise<Array<{ type: 'branch' | 'tag'; name: string }>> {
    return this.history.refsContaining(id);
  }

  /** A tree listing; one holding an entry no checkout may create (`.git`, `..`) or a corrupt tree is a GitContentError. */
  async tree(revision: string, treePath: string, recursive: boolean): Promise<GitTreeEntry[] | null> {
    const cleanPath = normalizeLookupPath(treePath);
    return this.guard('tree', async () => {
      if (!recursive) {
        const entries = await this.reader.treeEntries(revision, cleanPath);
        const dangerous = entries?.find((entry) => isDangerousEntryName(entry.name));
        if (dangerous) refuseDangerousPaths([dangerous.path]);
        return entries;
      }
      const tree = await this.reader.treeObject(revision, cleanPath);
      if (!tree) return null;
      const { stdout } = await runGit(this.path, ['ls-tree', '-r', '-t', '-z', tree.id]);
      const entries = parseLsTree(stdout, cleanPath);
      refuseDangerousPaths(entries.map((entry) => entry.path));
      return entries;
    });
  }

  /** The blob at a path; a path through an entry no checkout may create (`.git`, `..`) is a GitContentError. */
  async blobAt(revision: string, blobPath: string): Promise<GitBlobInfo | null> {
    const cleanPath = normalizeLookupPath(blobPath);
    if (cleanPath === '' || !isValidLookupPath(cleanPath)) return null;
    const slash = cleanPath.lastIndexOf('/');
    const parent = slash < 0 ? '' : cleanPath.slice(0, slash);
    return this.guard('read', async () => {
      const entries = await this.reader.treeEntries(revision, parent);
      const entry = entries?.find((candidate) => candidate.path === cleanPath && candidate.type === 'blob');
      if (!entry) return null;
      refuseDangerousPaths([entry.path]);
      const size = await this.blobSize(entry.id);
      return size === null ? null : { id: entry.id, size, mode: entry.mode, path: cleanPath };
    });
  }

  async blobSize(id: string): Promise<number | null> {
    const info = await this.reader.info(id);
    return info && info.type === 'blob' ? info.size : null;
  }

  async readBlob(id: string): Promise<Buffer | null> {
    const object = await this.reader.contents(id);
    return object && object.type === 'blob' ? object.data : null;
  }

  streamBlob(id: string, size?: number): Readable {
    if (!/^[0-9a-f]{40,64}$/.test(id)) throw new GantryError('GANTRY_E_OBJECT_ID_INVALID', 'Invalid blob id');
    if (size !== undefined && size <= SHARED_READ_LIMIT) {
      return Readable.from(
        (async function* read(reader: ObjectReader) {
          const object = await reader.contents(id);
          if (!object || object.type !== 'blob') throw new Error(`blob ${id} is missing`);
          yield object.data;
        })(this.reader),
      );
    }
    // A separate process: a large blob must not hold up the shared cat-file queue.
    return streamGit(this.path, ['cat-file', 'blob', id]);
  }

  lastCommitFor(revision: string, filePath: string, options: { pathspec?: boolean } = {}): Promise<GitCommit | null> {
    return this.history.lastCommitFor(revision, filePath, options);
  }

  async blame(revision: string, filePath: string, range?: { start: number; end: number }): Promise<AsyncIterable<GitBlameLine[]> | null> {
    const commitId = await this.reader.resolveCommit(revision);
    const blob = commitId === null ? null : await this.blobAt(commitId, filePath);
    if (commitId === null || blob === null) return null;
    const limit = this.access.blameMaxBytes ?? DEFAULT_BLAME_MAX_BYTES;
    if (blob.size > limit) {
      throw new GantryError('GANTRY_E_BLAME_TOO_LARGE', `${blob.path} is ${blob.size} bytes; blame is limited to files of at most ${limit} bytes`);
    }
    return heavyIteration(this.access, 'blame', () => blameLines(this.path, this.reader, commitId, blob.path, { range, lowPriority: true }));
  }

  contributors(ref?: string): Promise<GitContributor[]> {
    return this.history.contributors(ref);
  }

  archive(revision: string, format: GitArchiveFormat, prefix: string): Readable {
    return archiveStream(this.access, revision, format, prefix);
  }

  snapshot(): Readable {
    return snapshotStream(this.access, this.temporaryDirectory);
  }

  commitSignature(revision: string): Promise<CommitSignature | 'missing' | 'unsigned'> {
    return readCommitSignature(this.reader, revision);
  }

  commitFiles(request: GitCommitRequest): Promise<GitCommit> {
    return this.writer.commitFiles(request);
  }

  cherryPick(id: string, branch: string, committer: { name: string; email: string }): Promise<GitCommit> {
    return this.writer.cherryPick(id, branch, committer);
  }

  revert(id: string, branch: string, committer: { name: string; email: string }): Promise<GitCommit> {
    return this.writer.revert(id, branch, committer);
  }

  createBranch(name: string, target: string): Promise<boolean> {
    return this.refs.createBranch(name, target);
  }

  deleteBranch(name: string): Promise<boolean> {
    return this.refs.deleteBranch(name);
  }

  createTag(name: string, target: string, message: string | null, tagger: { name: string; email: string }): Promise<boolean> {
    return this.refs.createTag(name, target, message, tagger);
  }

  deleteTag(name: string): Promise<boolean> {
    return this.refs.deleteTag(name);
  }

  importTags(tags: readonly { name: string; object: string }[]): Promise<boolean> {
    return this.refs.importTags(tags);
  }

  importBranches(branches: readonly { name: string; object: string }[]): Promise<boolean> {
    return this.refs.importBranches(branches);
  }

  private guard<T>(operation: string, read: () => Promise<T>): Promise<T> {
    return reportingContentErrors(this.access, operation, read);
  }

  /** [short name, object id] of the refs under a prefix, in ref name order. */
  private async listRefs(prefix: string): Promise<Array<[string, string]>> {
    const output = await gitText(this.path, ['for-each-ref', '--format=%(refname)%00%(objectname)', prefix]);
    return output
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [ref = '', id = ''] = line.split('\0');
        return [ref.slice(prefix.length), id];
      });
  }

  private async describeTag(name: string, target: string): Promise<GitTag | null> {
    const commit = await this.reader.commit(target);
    if (!commit) return null;
    const annotation = commit.id === target ? null : await this.reader.tagObject(target);
    return { name, target, commit, message: annotation ? annotation.message.replace(/\n$/, '') : null, tagger: annotation?.tagger ?? null };
  }
}

/** `git ls-tree -r -t -z`: "<mode> <type> <id>\t<path>\0", paths relative to the listed tree. */
function parseLsTree(output: Buffer, base: string): GitTreeEntry[] {
  const entries: GitTreeEntry[] = [];
  for (const record of output.toString('utf8').split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode = '', type = '', id = ''] = record.slice(0, tab).split(' ');
    const relative = record.slice(tab + 1);
    const slash = relative.lastIndexOf('/');
    entries.push({
      id,
      name: slash < 0 ? relative : relative.slice(slash + 1),
      type: type === 'tree' ? 'tree' : type === 'commit' ? 'commit' : 'blob',
      path: base ? `${base}/${relative}` : relative,
      mode: mode.padStart(6, '0'),
    });
  }
  return entries;
}
