import { DIFF_MAX_FILES } from '../../../../storage/git/diff-limits.ts';
import type { GitClient, GitCommit, GitDiffStream, GitFileDiff, RepositoryManager } from '../../../../storage/git/types.ts';
import type { MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import type { NamespacesStore, ProjectRecord } from '../../../../storage/types.ts';
import type { Actor } from '../../access/permissions.ts';
import { pageOfList, pageOfStream, type Page, type Paged } from '../../repository/pages.ts';
import type { VisibleMergeRequests } from './visible.ts';
import { projectFullPath } from '../../namespaces/project-full-path.ts';

/** GitLab's `changes_count` stops counting here and answers "1000+" (its `diff_max_files`). */
export const CHANGES_COUNT_CAP = DIFF_MAX_FILES;
/** GitLab keeps at most this many commits of a merge request's diff (MergeRequestDiff's commits limit). */
export const MERGE_REQUEST_COMMITS_LIMIT = 1000;

/** The diff base and head of a request as refreshed; null before the first refresh. */
function diffRange(mergeRequest: MergeRequestRecord): { base: string; head: string } | null {
  const head = mergeRequest.head_sha;
  const base = mergeRequest.base_sha ?? mergeRequest.start_sha;
  return head === null || base === null ? null : { base, head };
}

function capped(count: number): string {
  return count > CHANGES_COUNT_CAP ? `${CHANGES_COUNT_CAP}+` : String(count);
}

/** `changes_count` of a request (for the request's views): the files of base..head as a string, "1000+" past the cap, null without a diff. */
export class MergeRequestChangesCount {
  constructor(private readonly deps: { repositories: Pick<RepositoryManager, 'open' | 'exists'> }) {}

  async countFor(mergeRequest: MergeRequestRecord, project: ProjectRecord, client?: GitClient): Promise<string | null> {
    const range = diffRange(mergeRequest);
    if (range === null || !(await this.deps.repositories.exists(project.id))) return null;
    const count = await this.deps.repositories.open(project.id, client).countChangedFiles(range.base, range.head, CHANGES_COUNT_CAP);
    return capped(count);
  }
}

export interface MergeRequestDiffsDeps {
  visible: Pick<VisibleMergeRequests, 'find'>;
  repositories: Pick<RepositoryManager, 'open' | 'exists'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
}

/** A request with its target project and that project's full path (commit links need it). */
export interface MergeRequestInProject {
  project: ProjectRecord;
  projectFullPath: string;
  mergeRequest: MergeRequestRecord;
}

export interface MergeRequestChangesAnswer extends MergeRequestInProject {
  /** The diff base..head under GitLab's limits, read as the answer is written; the caller must read or close it. */
  changes: GitDiffStream;
  changesCount: string | null;
}

/**
 * What git says about a merge request: `GET .../changes` (the diff base_sha..head_sha under
 * GitLab's diff limits, never held whole), `.../diffs` (a page of it) and `.../commits` (newest
 * first). Reads the request's refreshed shas; the objects are in the target repository.
 */
export class MergeRequestDiffs {
  private readonly counts: MergeRequestChangesCount;

  constructor(private readonly deps: MergeRequestDiffsDeps) {
    this.counts = new MergeRequestChangesCount(deps);
  }

  /** The request as `GET .../changes` answers it (404 when the actor may not see it), before its diff is opened. */
  async locate(projectRef: string, actor: Actor, iid: number): Promise<MergeRequestInProject> {
    return this.find(projectRef, actor, iid);
  }

  /** `expanded`: GitLab's `access_raw_diffs` — only the hard limits cut files, not the collapsing ones. */
  async changes(found: MergeRequestInProject, options: { expanded: boolean }, client?: GitClient): Promise<MergeRequestChangesAnswer> {
    const changes = await this.diffOf(found, options.expanded, client);
    // git lists every file before the first patch: the count costs no second diff.
    const listed = changes.fileCount;
    if (listed !== undefined) return { ...found, changes, changesCount: diffRange(found.mergeRequest) === null ? null : capped(listed) };
    // The listing passed the read ceiling: counted apart (the diff's slot is given back first).
    changes.close();
    const changesCount = await this.counts.countFor(found.mergeRequest, found.project, client);
    return { ...found, changesCount, changes: await this.diffOf(found, options.expanded, client) };
  }

  async diffs(projectRef: string, actor: Actor, iid: number, page: Page, client?: GitClient): Promise<MergeRequestInProject & Paged<GitFileDiff>> {
    const found = await this.find(projectRef, actor, iid);
    return { ...found, ...(await pageOfStream(await this.diffOf(found, false, client), page)) };
  }

  /**
   * A page of the diff as the web's changes tab reads it: the files before the page are scanned
   * (GitLab's collapsing limits count them) but not kept, git is stopped after the page's last
   * file, and the total is git's listing of the files (printed before any patch, at most
   * DIFF_MAX_FILES), not a count of patches read. `overflow`: the diff stops at a limit within
   * or right after this page.
   */
  async diffsWindow(projectRef: string, actor: Actor, iid: number, page: Page, client?: GitClient): Promise<Paged<GitFileDiff> & { overflow: boolean }> {
    const found = await this.find(projectRef, actor, iid);
    const diff = await this.diffOf(found, false, client);
    const items: GitFileDiff[] = [];
    let seen = 0;
    try {
      for await (const file of diff) {
        if (seen >= page.offset) items.push(file);
        seen += 1;
        if (items.length >= page.limit) break;
      }
    } finally {
      diff.close();
    }
    // The listing passed the read ceiling: counted apart, now that the diff's slot is free.
    const listed = diff.fileCount ?? Number.parseInt((await this.counts.countFor(found.mergeRequest, found.project, client)) ?? '0', 10);
    const stoppedBeforeFull = items.length < page.limit && diff.overflow;
    const endsAtFileLimit = listed > DIFF_MAX_FILES && page.offset + items.length >= DIFF_MAX_FILES;
    return { items, total: Math.min(listed, DIFF_MAX_FILES), overflow: stoppedBeforeFull || endsAtFileLimit };
  }

  /** Commits of head not on the target branch as refreshed (start_sha), newest first, at most MERGE_REQUEST_COMMITS_LIMIT. */
  async commits(projectRef: string, actor: Actor, iid: number, page: Page): Promise<MergeRequestInProject & Paged<GitCommit>> {
    const found = await this.find(projectRef, actor, iid);
    const { head_sha: head, start_sha: start, base_sha: base } = found.mergeRequest;
    if (head === null || !(await this.deps.repositories.exists(found.project.id))) return { ...found, items: [], total: 0 };
    const excluded = [start ?? base].filter((sha): sha is string => sha !== null);
    const commits = await this.deps.repositories.open(found.project.id).newCommits(head, excluded, MERGE_REQUEST_COMMITS_LIMIT);
    return { ...found, ...pageOfList(commits, page) };
  }

  /**
   * `diverged_commits_count` (`include_diverged_commits_count=true`): the commits of the target
   * branch the request's head lacks, at most MERGE_REQUEST_COMMITS_LIMIT; 0 unless open, as GitLab.
   */
  async divergedCommitsCount(projectRef: string, actor: Actor, iid: number): Promise<number> {
    const { project, mergeRequest } = await this.find(projectRef, actor, iid);
    if (mergeRequest.state !== 'opened' || mergeRequest.head_sha === null || !(await this.deps.repositories.exists(project.id))) return 0;
    const repository = this.deps.repositories.open(project.id);
    const target = await repository.resolveCommit(`refs/heads/${mergeRequest.target_branch}`);
    if (target === null) return 0;
    return (await repository.newCommits(target, [mergeRequest.head_sha], MERGE_REQUEST_COMMITS_LIMIT)).length;
  }

  private async find(projectRef: string, actor: Actor, iid: number): Promise<MergeRequestInProject> {
    const { project, mergeRequest } = await this.deps.visible.find(projectRef, actor, iid);
    return { project, mergeRequest, projectFullPath: await projectFullPath(this.deps.namespaces, project) };
  }

  private async diffOf(found: MergeRequestInProject, expanded: boolean, client?: GitClient): Promise<GitDiffStream> {
    const range = diffRange(found.mergeRequest);
    if (range === null || !(await this.deps.repositories.exists(found.project.id))) return noDiff();
    return this.deps.repositories.open(found.project.id, client).diffBetween(range.base, range.head, { expanded });
  }
}

function noDiff(): GitDiffStream {
  return {
    overflow: false,
    close: () => undefined,
    async *[Symbol.asyncIterator]() {
      // A request not refreshed yet has no diff.
    },
  };
}
