/**
 * GitLab's diff limits, at GitLab's defaults (the spec has no application settings for
 * them, so they are constants, here and nowhere else). GitLab's names:
 * `diff_max_patch_bytes`, `diff_max_files`, `diff_max_lines` (application settings);
 * `Gitlab::Git::DiffCollection.limits` derives the rest from them.
 */

/** `diff_max_patch_bytes`: a file whose patch reaches this is `too_large` (its `diff` emptied). */
export const DIFF_MAX_PATCH_BYTES = 200 * 1024;
/** `diff_max_files`: a diff of more files stops there, `overflow` set. */
export const DIFF_MAX_FILES = 1000;
/** `diff_max_lines`: a diff whose kept lines reach this stops there, `overflow` set. */
export const DIFF_MAX_LINES = 50_000;

/** GitLab's `DIFF_SAFE_LIMIT_FACTOR`: the safe (collapsing) limits are a tenth of the hard ones. */
const SAFE_LIMIT_FACTOR = 10;
/** GitLab budgets 5 KiB of patch per file for the byte total. */
const BYTES_PER_FILE = 5 * 1024;

/**
 * Gantry's own ceiling on the bytes read from one `git diff` (GitLab relies on its RPC
 * deadlines instead): files cut as too large are read through to find the next file but
 * count toward no total, so without it a diff of a thousand 50 MB files would be read whole.
 * Past it the diff stops as if a total had been reached.
 */
export const DIFF_MAX_SCANNED_BYTES = 256 * 1024 * 1024;

export interface DiffLimits {
  /** More files than this: overflow. */
  maxFiles: number;
  /** Kept lines reaching this: overflow. */
  maxLines: number;
  /** Kept bytes reaching this: overflow. */
  maxBytes: number;
  /** Past these totals, further files are collapsed (when not expanded). */
  safeMaxFiles: number;
  safeMaxLines: number;
  safeMaxBytes: number;
  /** A patch reaching this is too large. */
  maxPatchBytes: number;
  /** A patch reaching this is collapsed (when not expanded): a tenth of maxPatchBytes. */
  collapseBytes: number;
  /** Bytes of git output read at most. */
  maxScannedBytes: number;
}

/** The limits GitLab applies to commit diffs and comparisons by default. */
export const DIFF_LIMITS: Readonly<DiffLimits> = Object.freeze({
  maxFiles: DIFF_MAX_FILES,
  maxLines: DIFF_MAX_LINES,
  maxBytes: DIFF_MAX_FILES * BYTES_PER_FILE,
  safeMaxFiles: DIFF_MAX_FILES / SAFE_LIMIT_FACTOR,
  safeMaxLines: DIFF_MAX_LINES / SAFE_LIMIT_FACTOR,
  safeMaxBytes: (DIFF_MAX_FILES / SAFE_LIMIT_FACTOR) * BYTES_PER_FILE,
  maxPatchBytes: DIFF_MAX_PATCH_BYTES,
  collapseBytes: DIFF_MAX_PATCH_BYTES / SAFE_LIMIT_FACTOR,
  maxScannedBytes: DIFF_MAX_SCANNED_BYTES,
});
