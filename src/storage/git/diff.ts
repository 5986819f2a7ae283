import type { GitCommitStats, GitFileDiff } from './types.ts';

/** Arguments of a diff GitLab-style: renames detected, no colour, no external tools. */
export const DIFF_OPTIONS = ['--no-color', '--no-ext-diff', '--no-textconv', '-M', '--full-index'] as const;

interface RawEntry {
  oldMode: string;
  newMode: string;
  status: string;
  oldPath: string;
  newPath: string;
}

/**
 * Parses `git diff --raw -p -z`: NUL-separated raw records, then the patches in the same
 * order. Each patch starts with a `diff --git` line (a content line never does: content
 * lines start with ' ', '+' or '-').
 */
export function parseRawPatch(output: Buffer): GitFileDiff[] {
  const text = output.toString('utf8');
  const entries: RawEntry[] = [];
  let offset = 0;
  while (offset < text.length && text[offset] === ':') {
    const metaEnd = text.indexOf('\0', offset);
    const [oldMode = '', newMode = '', , , status = ''] = text.slice(offset + 1, metaEnd).split(' ');
    const firstEnd = text.indexOf('\0', metaEnd + 1);
    const firstPath = text.slice(metaEnd + 1, firstEnd);
    offset = firstEnd + 1;
    let secondPath = firstPath;
    if (status.startsWith('R') || status.startsWith('C')) {
      const secondEnd = text.indexOf('\0', offset);
      secondPath = text.slice(offset, secondEnd);
      offset = secondEnd + 1;
    }
    entries.push({ oldMode, newMode, status: status.charAt(0), oldPath: firstPath, newPath: secondPath });
  }
  const patchText = text.slice(offset).replace(/^\0/, '');
  const patches = splitPatches(patchText);
  return entries.map((entry, index) => ({
    old_path: entry.oldPath,
    new_path: entry.newPath,
    a_mode: entry.status === 'A' ? '0' : entry.oldMode,
    b_mode: entry.status === 'D' ? '0' : entry.newMode,
    new_file: entry.status === 'A',
    renamed_file: entry.status === 'R',
    deleted_file: entry.status === 'D',
    diff: patchBody(patches[index] ?? ''),
  }));
}

function splitPatches(text: string): string[] {
  if (!text.startsWith('diff --git ')) return [];
  const parts = text.split('\ndiff --git ');
  // Splitting took each patch's last newline; give it back.
  return parts.map((part, index) => `${index === 0 ? '' : 'diff --git '}${part}${index < parts.length - 1 ? '\n' : ''}`);
}

/** Drops the header lines: GitLab's diff starts at the first hunk or the "Binary files" line. */
function patchBody(patch: string): string {
  const lines = patch.split('\n');
  const start = lines.findIndex((line) => line.startsWith('@@') || line.startsWith('Binary files') || line.startsWith('GIT binary patch'));
  if (start < 0) return '';
  return lines.slice(start).join('\n');
}

/** Sums `git diff --numstat -z` (binary files count as 0). */
export function parseNumstat(output: Buffer): GitCommitStats {
  let additions = 0;
  let deletions = 0;
  for (const record of output.toString('utf8').split('\0')) {
    const match = /^(\d+|-)\t(\d+|-)\t/.exec(record);
    if (!match) continue;
    additions += match[1] === '-' ? 0 : Number(match[1]);
    deletions += match[2] === '-' ? 0 : Number(match[2]);
  }
  return { additions, deletions, total: additions + deletions };
}
