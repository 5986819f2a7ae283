/** The diff types of the git seam (types.ts re-exports them). */

export interface GitFileDiff {
  old_path: string;
  new_path: string;
  a_mode: string;
  b_mode: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  /** Unified diff text without the `diff --git` header lines (GitLab's shape); empty when collapsed or too large. */
  diff: string;
  /** Cut by GitLab's collapsing limits (past the safe totals, or over a tenth of the patch limit). */
  collapsed: boolean;
  /** Cut because its patch reached the patch limit. */
  too_large: boolean;
}

export interface GitDiffOptions {
  /**
   * GitLab's `expanded`: a commit's diff is (only files over the patch limit are cut); a
   * comparison is not (files past the safe totals and over a tenth of the patch limit are
   * collapsed too). See diff-limits.ts.
   */
  expanded: boolean;
}

/**
 * The files of a diff, read from git as they are iterated (once), under GitLab's diff
 * limits: memory does not grow with the diff, and git is stopped as soon as a total is
 * reached. Iterating to the end, breaking out, or close() stops git and frees its work slot.
 */
export interface GitDiffStream extends AsyncIterable<GitFileDiff> {
  /** Whether the diff stopped at a total (files, lines, bytes): GitLab's `overflow`. Final once iteration ended. */
  readonly overflow: boolean;
  /**
   * Files in the whole diff, as git listed them before the first patch (past the limits too):
   * what `changes_count` counts. Absent when git did not list them all (the read ceiling).
   */
  readonly fileCount?: number;
  /** Stops git and frees the work slot; harmless when already done. */
  close(): void;
}
