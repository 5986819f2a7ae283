import type { Readable } from 'node:stream';
import { GantryError } from '../../../shared/errors.ts';
import type { GitArchiveFormat, GitClient, GitCommit, GitContributor, GitDiffStream, GitTreeEntry } from '../../../storage/git/types.ts';
import type { Actor } from '../access/permissions.ts';
import type { ReadableRepository, RepositoryAccess } from './access.ts';
import { pageOfList, type Page, type Paged } from './pages.ts';
import { isInsideRepository, refuseTraversal } from './paths.ts';

export interface Blob {
  sha: string;
  content: Buffer;
}

export interface TreeQuery {
  ref?: string;
  path: string;
  recursive: boolean;
}

export interface BrowsingServiceDeps {
  access: Pick<RepositoryAccess, 'forRead'>;
}

export interface Archive {
  fileName: string;
  format: GitArchiveFormat;
  stream: Readable;
}

export interface Comparison {
  commits: GitCommit[];
  /** Read as the answer is written; whoever takes the comparison must read or close it. */
  diffs: GitDiffStream;
  sameRef: boolean;
}

export type ContributorOrder = 'name' | 'email' | 'commits';

/** Object ids only: blob routes never evaluate revision syntax such as `main:README.md`. */
const OBJECT_ID = /^[0-9a-f]{4,64}$/i;

/** GitLab's accepted spellings of archive formats. */
const ARCHIVE_FORMATS: Record<string, GitArchiveFormat> = {
  zip: 'zip',
  tar: 'tar',
  'tar.gz': 'tar.gz',
  tgz: 'tar.gz',
  gz: 'tar.gz',
  'tar.bz2': 'tar.bz2',
  tbz: 'tar.bz2',
  tbz2: 'tar.bz2',
  tb2: 'tar.bz2',
  bz2: 'tar.bz2',
};

export function archiveFormat(name: string): GitArchiveFormat | undefined {
  return Object.hasOwn(ARCHIVE_FORMATS, name) ? ARCHIVE_FORMATS[name] : undefined;
}

const TYPE_RANK: Record<GitTreeEntry['type'], number> = { tree: 0, blob: 1, commit: 2 };

/** Read-only views of a repository: tree, blobs, archives, compare, contributors. */
export class BrowsingService {
  constructor(private readonly deps: BrowsingServiceDeps) {}

  /** GitLab's sorted entries: directories, then files, then submodules; git's name order within each. */
  async tree(projectRef: string, actor: Actor, query: TreeQuery, page: Page, client?: GitClient): Promise<Paged<GitTreeEntry>> {
    const target = await this.deps.access.forRead(projectRef, actor, client);
    return pageOfList(await this.sortedTree(target, query.ref, query.path, query.recursive), page);
  }

  private async sortedTree(target: ReadableRepository, ref: string | undefined, treePath: string, recursive: boolean): Promise<GitTreeEntry[]> {
    refuseTraversal('path', treePath);
    const repository = target.repository;
    const revision = ref ?? (repository ? await repository.defaultBranch() : null);
    const commitId = repository && revision ? await repository.resolveCommit(revision) : null;
    if (!repository || !commitId) throw new GantryError('GANTRY_E_TREE_NOT_FOUND');
    const cleanPath = treePath.replace(/^\/+|\/+$/g, '');
    const entries = (isInsideRepository(cleanPath) ? await repository.tree(commitId, cleanPath, recursive) : null) ?? [];
    return entries
      .map((entry, index) => ({ entry, index }))
      .sort((a, b) => TYPE_RANK[a.entry.type] - TYPE_RANK[b.entry.type] || a.index - b.index)
      .map(({ entry }) => entry);
  }

  async blob(projectRef: string, actor: Actor, sha: string): Promise<Blob> {
    const target = await this.deps.access.forRead(projectRef, actor);
    const content = OBJECT_ID.test(sha) && target.repository ? await target.repository.readBlob(sha) : null;
    if (!content) throw new GantryError('GANTRY_E_BLOB_NOT_FOUND');
    return { sha, content };
  }

  /** The blob's bytes, streamed. */
  async rawBlob(projectRef: string, actor: Actor, sha: string): Promise<{ size: number; stream: Readable }> {
    const repository = (await this.deps.access.forRead(projectRef, actor)).repository;
    const size = OBJECT_ID.test(sha) && repository ? await repository.blobSize(sha) : null;
    if (!repository || size === null) throw new GantryError('GANTRY_E_BLOB_NOT_FOUND');
    return { size, stream: repository.streamBlob(sha, size) };
  }

  /** `<project path>-<ref with / as ->-<sha>.<ext>` as GitLab names archives; GANTRY_E_FILE_NOT_FOUND for unknown refs. */
  async archive(projectRef: string, actor: Actor, sha: string | undefined, format: GitArchiveFormat, client?: GitClient): Promise<Archive> {
    const target = await this.deps.access.forRead(projectRef, actor, client);
    const repository = target.repository;
    const ref = sha ?? (repository ? await repository.defaultBranch() : null);
    const commitId = repository && ref ? await repository.resolveCommit(ref) : null;
    if (!repository || !ref || !commitId) throw new GantryError('GANTRY_E_FILE_NOT_FOUND');
    const prefix = `${target.project.path}-${ref.replace(/\//g, '-')}-${commitId}`;
    return { fileName: `${prefix}.${format}`, format, stream: repository.archive(commitId, format, prefix) };
  }

  /**
   * Commits oldest first (GitLab's order) and the diff under GitLab's limits for comparisons
   * (not expanded), to be read as the answer is written; GANTRY_E_REF_NOT_FOUND when either side is unknown.
   */
  async compare(projectRef: string, actor: Actor, query: { from: string; to: string; straight: boolean }, client?: GitClient): Promise<{ target: ReadableRepository; comparison: Comparison }> {
    const target = await this.deps.access.forRead(projectRef, actor, client);
    const { from, to, straight } = query;
    const repository = target.repository;
    const [fromId, toId] = repository ? await Promise.all([repository.resolveCommit(from), repository.resolveCommit(to)]) : [null, null];
    if (!repository || !fromId || !toId) throw new GantryError('GANTRY_E_REF_NOT_FOUND');
    const result = await repository.compare(fromId, toId, straight);
    return { target, comparison: { commits: [...result.commits].reverse(), diffs: result.diffs, sameRef: from === to } };
  }

  /** `GET /merge_base`: refused for fewer than two refs or unknown ones, GANTRY_E_MERGE_BASE_NOT_FOUND for unrelated histories. */
  async mergeBase(projectRef: string, actor: Actor, refs: readonly string[]): Promise<{ target: ReadableRepository; commit: GitCommit }> {
    const target = await this.deps.access.forRead(projectRef, actor);
    if (refs.length < 2) throw new GantryError('GANTRY_E_TOO_FEW_REFS', 'Provide at least 2 refs');
    const repository = target.repository;
    const ids = repository ? await Promise.all(refs.map((ref) => repository.resolveCommit(ref))) : refs.map(() => null);
    const unknown = refs.filter((_ref, index) => !ids[index]);
    if (unknown.length > 0) throw new GantryError('GANTRY_E_REF_NOT_FOUND', `Could not find ${unknown.length === 1 ? 'ref' : 'refs'}: ${unknown.join(', ')}`);
    const [first, ...others] = ids as string[];
    const base = repository && first ? await repository.mergeBase(first, ...others) : null;
    const commit = base && repository ? await repository.commit(base) : null;
    if (!commit) throw new GantryError('GANTRY_E_MERGE_BASE_NOT_FOUND');
    return { target, commit };
  }

  /** Without order_by, the repository's own order (most recent contribution first); sort applies with order_by only. */
  async contributors(projectRef: string, actor: Actor, order: { orderBy?: ContributorOrder; sort: 'asc' | 'desc' }, page: Page, client?: GitClient): Promise<Paged<GitContributor>> {
    const repository = (await this.deps.access.forRead(projectRef, actor, client)).repository;
    if (!repository || (await repository.isEmpty())) return { items: [], total: 0 };
    const contributors = await repository.contributors();
    const { orderBy, sort } = order;
    if (!orderBy) return pageOfList(contributors, page);
    const direction = sort === 'desc' ? -1 : 1;
    return pageOfList([...contributors].sort((a, b) => direction * compareBy(a, b, orderBy)), page);
  }
}

function compareBy(a: GitContributor, b: GitContributor, key: ContributorOrder): number {
  if (key === 'commits') return a.commits - b.commits;
  return a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0;
}
