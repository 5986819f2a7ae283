/**
 * Merge requests (migration 030). Records use the API's field names with real booleans;
 * timestamps are ISO 8601 UTC text. The store is `MergeRequestsStore`.
 */
import type { Page } from './types-ci.ts';
import type { AnyOrNone, IssueProjectScope, LabelRecord, NegatedIssuableFilter } from './types-planning.ts';

/** `locked` is GitLab's state while a merge is being written; the API shows it as is. */
export type MergeRequestState = 'opened' | 'closed' | 'merged' | 'locked';
export type MergeStatus = 'unchecked' | 'checking' | 'can_be_merged' | 'cannot_be_merged' | 'cannot_be_merged_recheck' | 'cannot_be_merged_rechecking';

/** Options of a merge kept while it waits for the head pipeline (merge_when_pipeline_succeeds). */
export interface StoredMergeParams {
  sha?: string;
  mergeCommitMessage?: string;
  squashCommitMessage?: string;
  squash?: boolean;
  shouldRemoveSourceBranch?: boolean;
}

export interface MergeRequestRecord {
  id: number;
  iid: number;
  /** The target project (project_id equals target_project_id in the API). */
  project_id: number;
  /** The project of the source branch: a fork's id, or project_id; null once that fork is gone. */
  source_project_id: number | null;
  source_branch: string;
  target_branch: string;
  author_id: number;
  title: string;
  description: string | null;
  state: MergeRequestState;
  discussion_locked: boolean | null;
  milestone_id: number | null;
  time_estimate: number;
  total_time_spent: number;
  merge_status: MergeStatus;
  merge_error: string | null;
  merge_when_pipeline_succeeds: boolean;
  merge_user_id: number | null;
  merge_params: StoredMergeParams | null;
  squash: boolean;
  force_remove_source_branch: boolean;
  should_remove_source_branch: boolean | null;
  allow_collaboration: boolean;
  /** Source tip at the last refresh: the API's `sha` and diff_refs.head_sha. */
  head_sha: string | null;
  /** Merge base at the last refresh: diff_refs.base_sha. */
  base_sha: string | null;
  /** Target tip at the last refresh: diff_refs.start_sha. */
  start_sha: string | null;
  head_pipeline_id: number | null;
  merge_commit_sha: string | null;
  squash_commit_sha: string | null;
  merged_at: string | null;
  merged_by_id: number | null;
  closed_at: string | null;
  closed_by_id: number | null;
  lock_version: number;
  created_at: string;
  updated_at: string;
}

type MergeRequestDefaults =
  | 'discussion_locked' | 'milestone_id' | 'time_estimate' | 'total_time_spent' | 'merge_status' | 'merge_error'
  | 'merge_when_pipeline_succeeds' | 'merge_user_id' | 'merge_params' | 'squash' | 'force_remove_source_branch'
  | 'should_remove_source_branch' | 'allow_collaboration' | 'head_sha' | 'base_sha' | 'start_sha' | 'head_pipeline_id'
  | 'merge_commit_sha' | 'squash_commit_sha' | 'merged_at' | 'merged_by_id' | 'closed_at' | 'closed_by_id' | 'updated_at';

/** What creating a request needs; omitted fields take their empty value (merge_status `unchecked`, updated_at `created_at`). */
export type NewMergeRequest = Omit<MergeRequestRecord, 'id' | 'iid' | 'lock_version' | MergeRequestDefaults> & Partial<Pick<MergeRequestRecord, MergeRequestDefaults>>;
export type MergeRequestChanges = Partial<Omit<MergeRequestRecord, 'id' | 'iid' | 'project_id' | 'author_id' | 'created_at' | 'lock_version'>>;

export interface MergeRequestRelations {
  labelIds?: readonly number[];
  /** In the order given. */
  assigneeIds?: readonly number[];
  reviewerIds?: readonly number[];
}

export interface MergeRequestListFilter {
  projects: IssueProjectScope;
  /** `opened`, `closed`, `merged`, `locked`; undefined: all. */
  state?: MergeRequestState;
  labels?: readonly string[] | AnyOrNone;
  milestone?: string | AnyOrNone;
  milestoneId?: number;
  authorId?: number;
  assigneeId?: number | AnyOrNone;
  reviewerId?: number | AnyOrNone;
  iids?: readonly number[];
  /** GitLab's fuzzy search (like.ts: fuzzyMatch) of the title or the description (`searchIn` narrows it to one of them). */
  search?: string;
  searchIn?: readonly ('title' | 'description')[];
  sourceBranch?: string;
  targetBranch?: string;
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  /** true: only drafts (title prefix), false: no drafts. */
  draft?: boolean;
  /** Requests linked to a successful deployment: to this environment (by name), finished before / after these times (strictly). */
  deployed?: { environment?: string; finishedBefore?: string; finishedAfter?: string };
  reactedBy?: { userId: number; emoji: string | AnyOrNone };
  /** Requests whose title or description names this issue (`closing`: only those that close it on merge). */
  linkedIssue?: { issueId: number; closing: boolean };
  /** `not[...]`: requests matching none of these. */
  not?: NegatedMergeRequestFilter;
  orderBy: 'created_at' | 'updated_at' | 'title';
  sort: 'asc' | 'desc';
}

/** What `not[...]` leaves out of a merge request list: the issues' negations, and requests reviewed by the user. */
export interface NegatedMergeRequestFilter extends NegatedIssuableFilter {
  reviewerId?: number;
}

/** Title prefixes that mark a draft (`work_in_progress`), compared case-insensitively after leading spaces. */
export const DRAFT_TITLE_PREFIXES = ['draft:', '[draft]', '(draft)', 'wip:', '[wip]'] as const;

export function isDraftTitle(title: string): boolean {
  const lowered = title.replace(/^ +/, '').toLowerCase();
  return DRAFT_TITLE_PREFIXES.some((prefix) => lowered.startsWith(prefix));
}

/** The same-pair rule of create: an open request from this source branch into this target branch. */
export interface BranchPair {
  projectId: number;
  targetBranch: string;
  sourceProjectId: number;
  sourceBranch: string;
}

/** Raised by `create` and `update` when an open request for the same pair of branches already exists. */
export class OpenMergeRequestExists extends Error {
  constructor(readonly existingIid: number | null) {
    super('Another open merge request already exists for this source branch');
    this.name = 'OpenMergeRequestExists';
  }
}

export interface MergeRequestsStore {
  /** Inserts with the project's next merge request iid; throws OpenMergeRequestExists when the pair is taken. */
  create(request: NewMergeRequest, relations: MergeRequestRelations): Promise<MergeRequestRecord>;
  findByIid(projectId: number, iid: number): Promise<MergeRequestRecord | undefined>;
  findByIds(ids: readonly number[]): Promise<MergeRequestRecord[]>;
  /** Two statements whatever the page size: the count and the page. `opened` also matches `locked` (a merge in progress). */
  list(filter: MergeRequestListFilter, page: Page): Promise<{ items: MergeRequestRecord[]; total: number }>;
  /** One statement: open requests per label (`open_merge_requests_count` of `with_counts`) among these projects'. */
  openCountsByLabel(labelIds: readonly number[], projectIds: readonly number[]): Promise<Map<number, number>>;
  /** Open requests whose source is this branch of this project (a push to it refreshes them). */
  openBySource(sourceProjectId: number, sourceBranch: string): Promise<MergeRequestRecord[]>;
  /** Open requests into this branch of this project (a push to it rechecks their merge status). */
  openByTarget(projectId: number, targetBranch: string): Promise<MergeRequestRecord[]>;
  /** Requests `locked` by a merge whose lock (`updated_at`) is older than `before`, oldest first, at most `limit`. */
  lockedBefore(before: string, limit: number): Promise<MergeRequestRecord[]>;
  labelsOf(ids: readonly number[]): Promise<Map<number, LabelRecord[]>>;
  assigneesOf(ids: readonly number[]): Promise<Map<number, number[]>>;
  reviewersOf(ids: readonly number[]): Promise<Map<number, number[]>>;
  /** Replaces the relations given, in the same transaction; throws OpenMergeRequestExists when a reopen or retarget collides. */
  update(id: number, changes: MergeRequestChanges, relations: MergeRequestRelations): Promise<MergeRequestRecord | undefined>;
  /** Compare-and-set on lock_version: undefined when another write got there first. */
  updateIfUnchanged(id: number, lockVersion: number, changes: MergeRequestChanges): Promise<MergeRequestRecord | undefined>;
  delete(id: number): Promise<boolean>;
}

/** An issue a request's title or description names; `closes` when by a closing phrase into the default branch. */
export interface MergeRequestIssueLink {
  issueId: number;
  closes: boolean;
}

/** The issues each request names (GitLab's merge_requests_closing_issues, with the plain mentions). */
export interface MergeRequestIssueLinksStore {
  /** The request's links become exactly these, in one transaction. */
  /** With `readAtVersion`, only while the request's lock_version is still that one (false: it changed, nothing written). */
  replace(mergeRequestId: number, links: readonly MergeRequestIssueLink[], readAtVersion?: number): Promise<boolean>;
  /** How many requests close each of these issues on merge (GitLab's merge_requests_count); an issue none closes is absent. */
  closingCounts(issueIds: readonly number[]): Promise<Map<number, number>>;
  /** Requests by id after `afterId`, at most `limit`, in id order (the backfill's batches). */
  mergeRequestsAfter(afterId: number, limit: number): Promise<MergeRequestRecord[]>;
}

/** Which merge requests of a project a commit belongs to (`GET .../commits/:sha/merge_requests`). */
export interface MergeRequestCommitsStore {
  /** Requests into the project whose head, merge or squash commit is `sha` (a full id), oldest first, at most 100. */
  bySha(projectId: number, sha: string): Promise<MergeRequestRecord[]>;
}
