/** Subscriptions and todos: who follows an issue or label, and what a user is asked to look at. */
import type { Page } from './types-ci.ts';
import type { NoteableType } from './types-notes.ts';
import type { ConfidentialAccess, IssueProjectScope } from './types-planning.ts';

export type SubscribableType = 'Issue' | 'Label' | 'MergeRequest';

export interface SubscriptionsStore {
  /** The user's explicit choice on each of these targets: true subscribed, false unsubscribed; absent when none. */
  choices(userId: number, type: SubscribableType, ids: readonly number[]): Promise<Map<number, boolean>>;
  /** Records a choice (insert or replace); `projectId` is the project it was made in, null for a group label. */
  set(userId: number, type: SubscribableType, id: number, projectId: number | null, subscribed: boolean, at: string): Promise<void>;
  /** Whether the user wrote a (non-system) note on the issue (or merge request): commenters take part in it. */
  hasNoted(userId: number, noteableId: number, noteableType?: NoteableType): Promise<boolean>;
}

export type TodoAction = 'assigned' | 'review_requested' | 'mentioned' | 'directly_addressed' | 'marked' | 'build_failed' | 'approval_required' | 'unmergeable';
export type TodoState = 'pending' | 'done';

export interface TodoRecord {
  id: number;
  user_id: number;
  author_id: number;
  project_id: number | null;
  group_id: number | null;
  target_type: 'Issue' | 'MergeRequest';
  target_id: number;
  action: TodoAction;
  note_id: number | null;
  body: string;
  state: TodoState;
  created_at: string;
  updated_at: string;
}

export type NewTodo = Omit<TodoRecord, 'id' | 'state' | 'updated_at'>;

/** What `GET /todos` filters on; the caller's todos only, and only those whose target they may still see. */
export interface TodoListFilter {
  userId: number;
  /** The projects whose issues (and merge requests) the caller reads, as the issue lists scope them. */
  projects: IssueProjectScope;
  confidentialAccess: ConfidentialAccess | null;
  action?: TodoAction;
  authorId?: number;
  projectId?: number;
  /** Projects of these namespaces (a group and its descendants). */
  namespaceIds?: readonly number[];
  state?: TodoState;
  targetType?: 'Issue' | 'MergeRequest';
}

export interface TodosStore {
  /**
   * Creates a pending todo for each user who has no pending todo on the target yet (GitLab
   * keeps one pending todo per user and target); answers those created.
   */
  createPending(userIds: readonly number[], todo: Omit<NewTodo, 'user_id'>): Promise<TodoRecord[]>;
  /** Newest first. */
  list(filter: TodoListFilter, page: Page): Promise<{ items: TodoRecord[]; total: number }>;
  findOwn(userId: number, id: number): Promise<TodoRecord | undefined>;
  /** Marks the user's pending todos done: one, those on a target, or all; answers how many changed. */
  markDone(userId: number, which: { id: number } | { targetType: string; targetId: number } | 'all', at: string): Promise<number>;
}
