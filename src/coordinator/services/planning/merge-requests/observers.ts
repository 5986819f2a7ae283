import type { GitCommit } from '../../../../storage/git/types.ts';
import type { ProjectRecord, UserRecord } from '../../../../storage/types.ts';
import type { MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import type { LabelRecord } from '../../../../storage/types-planning.ts';

/** A merge request with its relations, as stored at one moment. */
export interface MergeRequestSnapshot {
  record: MergeRequestRecord;
  labels: readonly LabelRecord[];
  assigneeIds: readonly number[];
  reviewerIds: readonly number[];
}

/** A merge request created (`before` null) or updated through the API (title, state, branches, relations …). */
export interface MergeRequestSaved {
  /** The target project (the request's project_id). */
  project: ProjectRecord;
  actor: UserRecord;
  before: MergeRequestSnapshot | null;
  after: MergeRequestSnapshot;
  /** The time of the change, as written to `updated_at`. */
  at: string;
}

/**
 * The request's branches were read again: after a create, a reopen, a retarget, or a push to
 * either branch. `sourceMoved` when head_sha changed (or on create/reopen): a merge request
 * pipeline is due.
 */
export interface MergeRequestRefreshed {
  project: ProjectRecord;
  mergeRequest: MergeRequestRecord;
  sourceMoved: boolean;
  /** Who caused it: the pusher, or the API caller; null when the system did. */
  actor: UserRecord | null;
  /** A push to the source of an existing head: its commits not in the previous head, newest first (at most ADDED_COMMITS_LISTED). */
  addedCommits?: readonly GitCommit[];
  /** The push carried GitLab's `ci.skip` option: its merge request pipeline is saved `skipped`. */
  ciSkip?: boolean;
}

/** A merge request merged: its merge commit (or fast-forward, or squash) is on the target branch. */
export interface MergeRequestMerged {
  project: ProjectRecord;
  mergeRequest: MergeRequestRecord;
  actor: UserRecord;
  at: string;
}

/**
 * What follows a change to a merge request, after it is stored: system notes, todos, the ref
 * and merge status refresh, merge request pipelines, closing issues. Each observer is one
 * concern; the services that change merge requests only announce.
 */
export interface MergeRequestObserver {
  mergeRequestSaved?(change: MergeRequestSaved): Promise<void>;
  mergeRequestRefreshed?(refreshed: MergeRequestRefreshed): Promise<void>;
  mergeRequestMerged?(merged: MergeRequestMerged): Promise<void>;
}

export async function announceMergeRequestSaved(observers: readonly MergeRequestObserver[], change: MergeRequestSaved): Promise<void> {
  for (const observer of observers) await observer.mergeRequestSaved?.(change);
}

export async function announceMergeRequestRefreshed(observers: readonly MergeRequestObserver[], refreshed: MergeRequestRefreshed): Promise<void> {
  for (const observer of observers) await observer.mergeRequestRefreshed?.(refreshed);
}

export async function announceMergeRequestMerged(observers: readonly MergeRequestObserver[], merged: MergeRequestMerged): Promise<void> {
  for (const observer of observers) await observer.mergeRequestMerged?.(merged);
}
