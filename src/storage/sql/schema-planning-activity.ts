import type { Generated } from '#deps/kysely';

/** Tables of migration 025 (notes, award emoji, time logs, subscriptions, todos); part of DatabaseSchema (schema.ts). */
export interface NotesTable {
  id: Generated<number>;
  project_id: number;
  /** `Issue` (later `MergeRequest`). */
  noteable_type: string;
  noteable_id: number;
  author_id: number;
  body: string;
  /** 1 for notes the system writes (state, label, milestone, assignee changes …). */
  system: number;
  internal: number;
  created_at: string;
  updated_at: string;
  /** Migration 033: the thread (40 hex), null only for a row copied without it. */
  discussion_id: string | null;
  /** Null (a plain note), `DiscussionNote` or `DiffNote`. */
  type: string | null;
  /** A DiffNote's position, as JSON. */
  position: string | null;
  resolved_by_id: number | null;
  resolved_at: string | null;
}

export interface AwardEmojiTable {
  id: Generated<number>;
  name: string;
  user_id: number;
  /** `Issue`, `Note` (later `MergeRequest`). */
  awardable_type: string;
  awardable_id: number;
  created_at: string;
  updated_at: string;
}

export interface TimelogsTable {
  id: Generated<number>;
  project_id: number;
  issuable_type: string;
  issuable_id: number;
  user_id: number;
  /** Seconds; negative when time is subtracted. */
  time_spent: number;
  spent_at: string;
  summary: string | null;
  created_at: string;
}

export interface SubscriptionsTable {
  user_id: number;
  /** `Issue`, `Label` (later `MergeRequest`). */
  subscribable_type: string;
  subscribable_id: number;
  project_id: number | null;
  /** 1 subscribed; 0 an explicit unsubscribe, which outranks being a participant. */
  subscribed: number;
  created_at: string;
  updated_at: string;
}

export interface TodosTable {
  id: Generated<number>;
  user_id: number;
  author_id: number;
  project_id: number | null;
  group_id: number | null;
  target_type: string;
  target_id: number;
  /** `assigned`, `mentioned`, `directly_addressed`, `marked` … */
  action: string;
  note_id: number | null;
  body: string;
  /** `pending` or `done`. */
  state: string;
  created_at: string;
  updated_at: string;
}
