/** Labels, milestones and issues: the planning records and their stores. */
import type { Page } from './types-ci.ts';

export interface LabelRecord {
  id: number;
  project_id: number | null;
  group_id: number | null;
  title: string;
  /** `#rrggbb`. */
  color: string;
  description: string | null;
  priority: number | null;
  created_at: string;
  updated_at: string;
}

export type NewLabel = Omit<LabelRecord, 'id'>;
export type LabelChanges = Partial<Pick<LabelRecord, 'title' | 'color' | 'description' | 'priority' | 'updated_at'>>;

export interface LabelsStore {
  /** Throws a unique violation when the owner has the title already. */
  create(label: NewLabel): Promise<LabelRecord>;
  findById(id: number): Promise<LabelRecord | undefined>;
  /** The labels of these projects and groups, by title then id; `search` a substring of the title. */
  list(owners: { projectIds: readonly number[]; groupIds: readonly number[] }, search: string | undefined, page: Page): Promise<{ items: LabelRecord[]; total: number }>;
  /** The labels of these owners named by any of `titles` (exact titles). */
  findByTitles(owners: { projectIds: readonly number[]; groupIds: readonly number[] }, titles: readonly string[]): Promise<LabelRecord[]>;
  /**
   * The project's labels of these titles, each inserted with `color` when missing (a
   * concurrent insert of the same title wins quietly).
   */
  findOrCreateInProject(projectId: number, titles: readonly string[], color: string, now: string): Promise<LabelRecord[]>;
  update(id: number, changes: LabelChanges): Promise<LabelRecord | undefined>;
  delete(id: number): Promise<boolean>;
}

export type MilestoneState = 'active' | 'closed';

export interface MilestoneRecord {
  id: number;
  /** Per project, or per group for group milestones. */
  iid: number;
  project_id: number | null;
  group_id: number | null;
  title: string;
  description: string | null;
  state: MilestoneState;
  due_date: string | null;
  start_date: string | null;
  created_at: string;
  updated_at: string;
}

export type NewMilestone = Omit<MilestoneRecord, 'id' | 'iid'>;
export type MilestoneChanges = Partial<Pick<MilestoneRecord, 'title' | 'description' | 'state' | 'due_date' | 'start_date' | 'updated_at'>>;

export interface MilestoneListFilter {
  iids?: readonly number[];
  state?: MilestoneState;
  /** Exact title. */
  title?: string;
  /** GitLab's fuzzy search of the title or the description (every word of two characters or more, or the whole query). */
  search?: string;
  /** Updated at or before / at or after (ISO timestamps). */
  updatedBefore?: string;
  updatedAfter?: string;
}

/** Where a milestone title may not be used again: these projects' and groups' milestones, and those of the projects in these namespaces. */
export interface MilestoneTitleScope {
  projectIds: readonly number[];
  groupIds: readonly number[];
  projectNamespaceIds: readonly number[];
}

export interface MilestoneIssueCounts {
  total: number;
  closed: number;
}

export interface MilestonesStore {
  /** Inserts with the owner's next milestone iid; throws a unique violation when the title is taken. */
  create(milestone: NewMilestone): Promise<MilestoneRecord>;
  findById(id: number): Promise<MilestoneRecord | undefined>;
  findByIds(ids: readonly number[]): Promise<MilestoneRecord[]>;
  /** As GitLab's MilestonesFinder lists them: soonest due first (no due date last), then newest first. */
  list(owners: { projectIds: readonly number[]; groupIds: readonly number[] }, filter: MilestoneListFilter, page: Page): Promise<{ items: MilestoneRecord[]; total: number }>;
  /** The milestones of these projects and groups with exactly one of these titles (any state). */
  findByTitles(owners: { projectIds: readonly number[]; groupIds: readonly number[] }, titles: readonly string[]): Promise<MilestoneRecord[]>;
  /** How many issues each milestone has, and how many of them are closed (confidential ones too); absent ids have none. */
  issueCounts(ids: readonly number[]): Promise<Map<number, MilestoneIssueCounts>>;
  /** Whether a milestone of the scope has exactly this title. */
  titleTaken(scope: MilestoneTitleScope, title: string): Promise<boolean>;
  update(id: number, changes: MilestoneChanges): Promise<MilestoneRecord | undefined>;
  delete(id: number): Promise<boolean>;
}

export type IssueState = 'opened' | 'closed';

export interface IssueRecord {
  id: number;
  iid: number;
  project_id: number;
  author_id: number;
  title: string;
  description: string | null;
  state: IssueState;
  confidential: boolean;
  discussion_locked: boolean | null;
  milestone_id: number | null;
  due_date: string | null;
  time_estimate: number;
  total_time_spent: number;
  closed_at: string | null;
  closed_by_id: number | null;
  created_at: string;
  updated_at: string;
  /** The issue this one was moved to; set only by a move (services/planning/issue-move.ts). */
  moved_to_id: number | null;
}

export type NewIssue = Omit<IssueRecord, 'id' | 'iid' | 'moved_to_id'>;
export type IssueChanges = Partial<Omit<IssueRecord, 'id' | 'iid' | 'project_id' | 'author_id' | 'created_at' | 'moved_to_id'>>;

/** Which projects a list covers. Every field given narrows it; `visibleScope` null means every project. */
export interface IssueProjectScope {
  projectIds?: readonly number[];
  namespaceIds?: readonly number[];
  /** The read rule as a filter (ProjectVisibilityScope); null: no restriction (administrators). */
  visibleScope: { visibilities: readonly string[]; namespaceIds: readonly number[]; projectIds: readonly number[] } | null;
}

/**
 * Who sees confidential issues besides their authors and assignees: null for everyone who
 * sees the issue (administrators, Reporters of the one project listed).
 */
export interface ConfidentialAccess {
  userId: number | null;
  /** Projects and namespaces where the caller is Reporter or above. */
  projectIds: readonly number[];
  namespaceIds: readonly number[];
}

export type AnyOrNone = 'any' | 'none';

export interface IssueListFilter {
  projects: IssueProjectScope;
  confidentialAccess: ConfidentialAccess | null;
  state?: IssueState;
  /** Every one of these label titles (AND), or any label, or none. */
  labels?: readonly string[] | AnyOrNone;
  /** A milestone title, or any milestone, or none. */
  milestone?: string | AnyOrNone;
  milestoneId?: number;
  authorId?: number;
  assigneeId?: number | AnyOrNone;
  iids?: readonly number[];
  /** GitLab's fuzzy search (like.ts: fuzzyMatch) of the title or the description (`searchIn` narrows it to one of them). */
  search?: string;
  searchIn?: readonly ('title' | 'description')[];
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  confidential?: boolean;
  /** `my_reaction_emoji`: issues this user awarded that emoji, or any, or none. */
  reactedBy?: { userId: number; emoji: string | AnyOrNone };
  /** `milestone_id=Upcoming`: each project's or group's next active milestone due after today; `Started`: an active milestone started by today. */
  milestoneWildcard?: 'upcoming' | 'started';
  /** `due_date`: none, any, or a range of days (inclusive; `before` exclusive). */
  due?: AnyOrNone | { from?: string; to?: string; before?: string };
  /** GitLab's CURRENT_DATE (`YYYY-MM-DD`) for the milestone wildcards; the UTC day when absent. */
  today?: string;
  /** `not[...]`: issues matching none of these. */
  not?: NegatedIssuableFilter;
  orderBy: 'created_at' | 'updated_at';
  sort: 'asc' | 'desc';
}

/** What `not[...]` leaves out of an issue or merge request list: rows with any of the labels, in the milestone (by title or wildcard), by the author, assigned to the user, awarded the emoji by the user, of these iids. */
export interface NegatedIssuableFilter {
  labels?: readonly string[];
  milestone?: string;
  milestoneWildcard?: AnyOrNone | 'upcoming' | 'started';
  authorId?: number;
  assigneeId?: number;
  reactedBy?: { userId: number; emoji: string };
  iids?: readonly number[];
}

export interface IssueRelations {
  labelIds?: readonly number[];
  assigneeIds?: readonly number[];
}

export interface IssuesStore {
  /** Inserts with the project's next issue iid (no gap, no duplicate under concurrency), with its labels and assignees. */
  create(issue: NewIssue, relations: IssueRelations): Promise<IssueRecord>;
  findByIid(projectId: number, iid: number): Promise<IssueRecord | undefined>;
  /** One statement: the issues of these ids that exist (todos name their issue by id). */
  findByIds(ids: readonly number[]): Promise<IssueRecord[]>;
  /** Two statements whatever the page size: the count and the page. */
  list(filter: IssueListFilter, page: Page): Promise<{ items: IssueRecord[]; total: number }>;
  /** One statement: each issue's labels, by title. */
  labelsOf(issueIds: readonly number[]): Promise<Map<number, LabelRecord[]>>;
  /** One statement: each issue's assignees' ids, in the order assigned. */
  assigneesOf(issueIds: readonly number[]): Promise<Map<number, number[]>>;
  /** Replaces the labels and assignees given, in the same transaction. */
  update(id: number, changes: IssueChanges, relations: IssueRelations): Promise<IssueRecord | undefined>;
  delete(id: number): Promise<boolean>;
  /** One statement: opened and closed issues per label (`with_counts`) among these projects' issues the caller sees. */
  countsByLabel(labelIds: readonly number[], projectIds: readonly number[], confidentialAccess: ConfidentialAccess | null): Promise<Map<number, { opened: number; closed: number }>>;
}
