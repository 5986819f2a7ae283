import type { ProjectVisibilityScope } from './types-projects.ts';

export const EVENT_ACTIONS = ['created', 'updated', 'closed', 'reopened', 'pushed', 'commented', 'merged', 'joined', 'left', 'destroyed', 'expired'] as const;
export type EventAction = (typeof EVENT_ACTIONS)[number];

export const EVENT_TARGET_TYPES = ['issue', 'milestone', 'merge_request', 'note', 'project', 'snippet', 'user'] as const;
export type EventTargetType = (typeof EVENT_TARGET_TYPES)[number];

/** GitLab's PushEventPayload. */
export interface EventPushData {
  commit_count: number;
  action: 'pushed' | 'created' | 'removed';
  ref_type: 'branch' | 'tag';
  commit_from: string | null;
  commit_to: string | null;
  ref: string;
  commit_title: string | null;
  ref_count: number | null;
}

/** What an event keeps of the note it records (a comment). */
export interface EventNote {
  id: number;
  body: string;
  noteable_type: string;
  noteable_id: number;
  noteable_iid: number | null;
  created_at: string;
}

/** One activity event (GitLab's Event): `target_type` is GitLab's class name (Issue, MergeRequest, Note ...). */
export interface EventRecord {
  id: number;
  project_id: number;
  author_id: number;
  action: EventAction;
  target_type: string | null;
  target_id: number | null;
  target_iid: number | null;
  target_title: string | null;
  push_data: EventPushData | null;
  note: EventNote | null;
  /** An event of a confidential issue or an internal note: shown only to who may see those. */
  confidential: boolean;
  created_at: string;
}

export type NewEvent = Omit<EventRecord, 'id'>;

export interface EventListFilter {
  authorId?: number;
  projectId?: number;
  /** Only events of projects in this scope (null: every project, for administrators). */
  scope: ProjectVisibilityScope | null;
  /**
   * Who sees confidential events: 'all' (administrators), else those of the viewer's own
   * (authorId) and those of projects where the viewer is at least a reporter.
   */
  confidential: 'all' | { authorId: number | null; namespaceIds: number[]; projectIds: number[] };
  action?: EventAction;
  /** GitLab's class name (Issue, MergeRequest, Note, Milestone, Project ...). */
  targetType?: string;
  /** ISO times: created_at < before, created_at >= after. */
  before?: string;
  after?: string;
  sort: 'asc' | 'desc';
}

export interface EventsStore {
  record(event: NewEvent): Promise<void>;
  /**
   * Of the next `limit` events by id after `afterId` (the order they were recorded in),
   * deletes those created before `before`; answers how many, and the last id it looked at
   * (null: no event after `afterId`).
   */
  deleteOldBatch(before: string, afterId: number, limit: number): Promise<{ deleted: number; lastId: number | null }>;
  list(filter: EventListFilter, page: { offset: number; limit: number }): Promise<{ items: EventRecord[]; total: number }>;
}
