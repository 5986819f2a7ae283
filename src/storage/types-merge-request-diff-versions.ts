/** Versions of a merge request's diff (migration 063); the store is `MergeRequestDiffVersionsStore`. */
import type { Page } from './types-ci.ts';

/** GitLab's MergeRequestDiff states Gantry records: files changed, none (or no commits), or more than the file limit. */
export type DiffVersionState = 'collected' | 'empty' | 'overflow';

/** One version: the diff refs of a refresh, and what its diff held then. Field names are GitLab's. */
export interface MergeRequestDiffVersionRecord {
  id: number;
  merge_request_id: number;
  head_commit_sha: string;
  /** null when source and target share no history (the diff then starts at start_commit_sha). */
  base_commit_sha: string | null;
  start_commit_sha: string;
  /** null for the versions migration 063 made, until read from git once. */
  state: DiffVersionState | null;
  /** The changed files as a string (`"1000+"` past the limit); null when the version has no commits. */
  real_size: string | null;
  created_at: string;
}

export type NewMergeRequestDiffVersion = Omit<MergeRequestDiffVersionRecord, 'id'>;

export interface MergeRequestDiffVersionsStore {
  add(version: NewMergeRequestDiffVersion): Promise<MergeRequestDiffVersionRecord>;
  /** The request's newest version (highest id). */
  latest(mergeRequestId: number): Promise<MergeRequestDiffVersionRecord | undefined>;
  /** Newest first; two statements whatever the page size. */
  list(mergeRequestId: number, page: Page): Promise<{ items: MergeRequestDiffVersionRecord[]; total: number }>;
  /** The version of that id, if it belongs to that request. */
  find(mergeRequestId: number, id: number): Promise<MergeRequestDiffVersionRecord | undefined>;
  /** Writes state and real_size read from git for a version that had none (a second writer writes the same values). */
  fillCollected(id: number, state: DiffVersionState, realSize: string | null): Promise<void>;
}
