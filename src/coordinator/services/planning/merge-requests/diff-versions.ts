import { GantryError } from '../../../../shared/errors.ts';
import { DIFF_MAX_FILES } from '../../../../storage/git/diff-limits.ts';
import type { GitClient, GitCommit, GitDiffStream, GitRepository, RepositoryManager } from '../../../../storage/git/types.ts';
import type { Page } from '../../../../storage/types-ci.ts';
import type { DiffVersionState, MergeRequestDiffVersionRecord, MergeRequestDiffVersionsStore } from '../../../../storage/types-merge-request-diff-versions.ts';
import type { MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import type { NamespacesStore, ProjectRecord } from '../../../../storage/types.ts';
import type { Actor } from '../../access/permissions.ts';
import { projectFullPath } from '../../namespaces/project-full-path.ts';
import { MERGE_REQUEST_COMMITS_LIMIT } from './changes.ts';
import type { VisibleMergeRequests } from './visible.ts';

type Repositories = Pick<RepositoryManager, 'open' | 'exists'>;
type DiffRefs = Pick<MergeRequestDiffVersionRecord, 'head_commit_sha' | 'base_commit_sha' | 'start_commit_sha'>;

/** The diff of a version starts at the merge base, or at the target tip when there is none (as the request's own diff). */
const diffBase = (refs: DiffRefs): string => refs.base_commit_sha ?? refs.start_commit_sha;

/**
 * What a version's diff holds, as GitLab's MergeRequestDiff#save_diffs decides it: no commits of
 * head beyond the target tip is `empty` with no real_size; otherwise real_size counts the changed
 * files (`"1000+"` and `overflow` past DIFF_MAX_FILES), `empty` when that is none. Only the file
 * limit is checked here: the line and byte limits would need the whole diff read at every push.
 */
async function collect(repository: GitRepository, refs: DiffRefs): Promise<{ state: DiffVersionState; real_size: string | null }> {
  const head = await repository.resolveCommit(refs.head_commit_sha);
  if (head === null || (await repository.newCommitIds(head, [refs.start_commit_sha], 1)).length === 0) return { state: 'empty', real_size: null };
  const base = await repository.resolveCommit(diffBase(refs));
  if (base === null) return { state: 'empty', real_size: null };
  const files = await repository.countChangedFiles(base, head, DIFF_MAX_FILES);
  if (files > DIFF_MAX_FILES) return { state: 'overflow', real_size: `${DIFF_MAX_FILES}+` };
  return { state: files === 0 ? 'empty' : 'collected', real_size: String(files) };
}

const sameRefs = (version: DiffRefs, request: MergeRequestRecord): boolean =>
  version.head_commit_sha === request.head_sha && version.base_commit_sha === request.base_sha && version.start_commit_sha === request.start_sha;

/**
 * Records a new version of a request's diff after a refresh (MergeRequestRefresher): when its
 * head, merge base or target tip differ from its newest version's — a create, a push to the
 * source branch, a rebase, a retarget. A request with no head or no target branch has no diff to
 * record. Two refreshes racing may record the same refs twice, as GitLab's reload_diff may.
 */
export class MergeRequestDiffVersionRecorder {
  constructor(private readonly deps: { versions: Pick<MergeRequestDiffVersionsStore, 'latest' | 'add'>; repositories: Repositories }) {}

  async record(mergeRequest: MergeRequestRecord): Promise<MergeRequestDiffVersionRecord | null> {
    const { head_sha: head, start_sha: start, base_sha: base } = mergeRequest;
    if (head === null || start === null || !(await this.deps.repositories.exists(mergeRequest.project_id))) return null;
    const latest = await this.deps.versions.latest(mergeRequest.id);
    if (latest && sameRefs(latest, mergeRequest)) return null;
    const refs = { head_commit_sha: head, base_commit_sha: base, start_commit_sha: start };
    const collected = await collect(this.deps.repositories.open(mergeRequest.project_id), refs);
    return this.deps.versions.add({ merge_request_id: mergeRequest.id, ...refs, ...collected, created_at: new Date().toISOString() });
  }
}

export interface MergeRequestDiffVersionsDeps {
  visible: Pick<VisibleMergeRequests, 'find'>;
  versions: Pick<MergeRequestDiffVersionsStore, 'list' | 'find' | 'fillCollected'>;
  repositories: Repositories;
  namespaces: Pick<NamespacesStore, 'findById'>;
}

/** A version as `GET .../versions/:version_id` answers it. */
export interface MergeRequestDiffVersionAnswer {
  version: MergeRequestDiffVersionRecord;
  projectFullPath: string;
  /** The commits of head not on the target tip, newest first, at most MERGE_REQUEST_COMMITS_LIMIT. */
  commits: GitCommit[];
  /** base..head under the hard diff limits (GitLab renders a version's diffs uncollapsed), read as the answer is written; the caller must read or close it. */
  diffs: GitDiffStream;
}

/**
 * `GET /projects/:id/merge_requests/:merge_request_iid/versions[/:version_id]` (GitLab's
 * MergeRequestDiffs API): the versions of a request the caller may read. The commits and diffs of
 * a version are read from git at its refs; a version whose commits are gone from the repository
 * (force-pushed away, then pruned) answers none.
 */
export class MergeRequestDiffVersions {
  constructor(private readonly deps: MergeRequestDiffVersionsDeps) {}

  /** Newest first. */
  async list(projectRef: string, actor: Actor, iid: number, page: Page): Promise<{ items: MergeRequestDiffVersionRecord[]; total: number }> {
    const { project, mergeRequest } = await this.deps.visible.find(projectRef, actor, iid);
    const { items, total } = await this.deps.versions.list(mergeRequest.id, page);
    return { items: await Promise.all(items.map((version) => this.collected(project, version))), total };
  }

  /** 404 `Not found` for an id that is no version of this request. */
  async one(projectRef: string, actor: Actor, iid: number, versionId: number, client?: GitClient): Promise<MergeRequestDiffVersionAnswer> {
    const { project, mergeRequest } = await this.deps.visible.find(projectRef, actor, iid);
    const found = await this.deps.versions.find(mergeRequest.id, versionId);
    if (!found) throw new GantryError('GANTRY_E_MERGE_REQUEST_DIFF_VERSION_NOT_FOUND');
    const version = await this.collected(project, found);
    const fullPath = await projectFullPath(this.deps.namespaces, project);
    if (!(await this.deps.repositories.exists(project.id))) return { version, projectFullPath: fullPath, commits: [], diffs: noDiff() };
    const repository = this.deps.repositories.open(project.id, client);
    const [head, base] = await Promise.all([repository.resolveCommit(version.head_commit_sha), repository.resolveCommit(diffBase(version))]);
    if (head === null || base === null) return { version, projectFullPath: fullPath, commits: [], diffs: noDiff() };
    const commits = await repository.newCommits(head, [version.start_commit_sha], MERGE_REQUEST_COMMITS_LIMIT);
    // Opened last: the diff holds a git work slot until the answer has read it.
    return { version, projectFullPath: fullPath, commits, diffs: await repository.diffBetween(base, head, { expanded: true }) };
  }

  /** A version the migration made gets its state and real_size from git once. */
  private async collected(project: ProjectRecord, version: MergeRequestDiffVersionRecord): Promise<MergeRequestDiffVersionRecord> {
    if (version.state !== null || !(await this.deps.repositories.exists(project.id))) return version;
    const { state, real_size } = await collect(this.deps.repositories.open(project.id), version);
    await this.deps.versions.fillCollected(version.id, state, real_size);
    return { ...version, state, real_size };
  }
}

function noDiff(): GitDiffStream {
  return {
    overflow: false,
    close: () => undefined,
    async *[Symbol.asyncIterator]() {
      // No repository, or the version's commits are gone: nothing to show.
    },
  };
}
