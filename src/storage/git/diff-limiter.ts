import type { DiffLimits } from './diff-limits.ts';
import type { RawDiffEntry, ScannedPatch } from './diff-output.ts';
import type { GitFileDiff } from './types.ts';

export interface DiffLimiterOptions {
  /**
   * GitLab's `expanded`. A commit's diff is expanded: only files over the patch limit are cut
   * (`too_large`). A comparison is not: files past the safe totals, and files over a tenth of
   * the patch limit, are collapsed too (`collapsed`).
   */
  expanded: boolean;
  /** Files the diff has in all: a diff of one file is always shown expanded. */
  files: number;
}

/**
 * GitLab's decisions for each file of a diff, in order, as Gitaly takes them: a file past
 * the safe totals is collapsed, one whose patch reaches the patch limit is too large (both
 * emptied, and their lines and bytes leave the totals); the diff stops (overflow) at the
 * file that brings the totals to their limits or exceeds the file count, and that file is
 * dropped. Last, GitLab's own rule collapses a kept patch over a tenth of the patch limit.
 */
export class DiffLimiter {
  private files = 0;
  private lines = 0;
  private bytes = 0;

  constructor(
    private readonly limits: Readonly<DiffLimits>,
    private readonly options: DiffLimiterOptions,
  ) {}

  /** True once the next file would exceed the file count. */
  get full(): boolean {
    return this.files >= this.limits.maxFiles;
  }

  /** The file as answered, or null when it overflowed the totals (the diff stops there). */
  admit(entry: RawDiffEntry, patch: ScannedPatch): GitFileDiff | null {
    const { limits, options } = this;
    this.files += 1;
    if (this.files > limits.maxFiles) return null;
    this.lines += patch.contentLines;
    this.bytes += patch.contentBytes;
    let collapsed = false;
    let tooLarge = false;
    const overSafeLimits = this.files > limits.safeMaxFiles || this.lines > limits.safeMaxLines || this.bytes > limits.safeMaxBytes;
    if (!options.expanded && overSafeLimits && patch.contentLines > 0) collapsed = true;
    else if (patch.patchBytes >= limits.maxPatchBytes) tooLarge = true;
    if (collapsed || tooLarge) {
      this.lines -= patch.contentLines;
      this.bytes -= patch.contentBytes;
    }
    if (this.lines >= limits.maxLines || this.bytes >= limits.maxBytes) return null;
    const alwaysExpanded = options.expanded || options.files === 1;
    if (!collapsed && !tooLarge && !alwaysExpanded && patch.patchBytes >= limits.collapseBytes) collapsed = true;
    const diff = collapsed || tooLarge || patch.body === null ? '' : patch.body.toString('utf8');
    return fileDiff(entry, diff, collapsed, tooLarge);
  }
}

function fileDiff(entry: RawDiffEntry, diff: string, collapsed: boolean, tooLarge: boolean): GitFileDiff {
  return {
    old_path: entry.oldPath,
    new_path: entry.newPath,
    a_mode: entry.status === 'A' ? '0' : entry.oldMode,
    b_mode: entry.status === 'D' ? '0' : entry.newMode,
    new_file: entry.status === 'A',
    renamed_file: entry.status === 'R',
    deleted_file: entry.status === 'D',
    diff,
    collapsed,
    too_large: tooLarge,
  };
}
