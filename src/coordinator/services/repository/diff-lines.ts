import type { CommitCommentLineType } from '../../../storage/types-commit-comments.ts';

export interface DiffLine {
  /** null for context lines. */
  type: CommitCommentLineType | null;
  oldPos: number;
  newPos: number;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** The lines of a unified diff with their old/new positions (GitLab's Diff::Parser). */
export function parseDiffLines(diff: string): DiffLine[] {
  const lines: DiffLine[] = [];
  let oldPos = 0;
  let newPos = 0;
  let inHunk = false;
  for (const text of diff.split('\n')) {
    const header = HUNK_HEADER.exec(text);
    if (header) {
      oldPos = Number(header[1]);
      newPos = Number(header[2]);
      inHunk = true;
      continue;
    }
    if (!inHunk || text.startsWith('\\')) continue;
    if (text.startsWith('+')) {
      lines.push({ type: 'new', oldPos, newPos });
      newPos += 1;
    } else if (text.startsWith('-')) {
      lines.push({ type: 'old', oldPos, newPos });
      oldPos += 1;
    } else if (text.startsWith(' ')) {
      lines.push({ type: null, oldPos, newPos });
      oldPos += 1;
      newPos += 1;
    }
  }
  return lines;
}

/**
 * The diff line a comment attaches to: GitLab matches the new-side position and the line
 * type. Reports the line number GitLab shows (new side for added lines, old side for removed).
 */
export function findCommentLine(diff: string, line: number, lineType: CommitCommentLineType): number | null {
  const match = parseDiffLines(diff).find((candidate) => candidate.newPos === line && candidate.type === lineType);
  if (!match) return null;
  return match.type === 'old' ? match.oldPos : match.newPos;
}

/** Where a text position (an old and a new line number, either absent) falls in a file's unified diff. */
export type DiffPositionMatch = 'line' | 'unfold' | 'none';

const HUNK_RANGES = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * GitLab's DiffFile#line_for_position: an added line is named by its new number alone, a
 * removed one by its old number alone, a context line by both ('line'). A pair naming an
 * unchanged line outside every hunk, its new number shifted by the hunks above it, is
 * 'unfold': GitLab unfolds the diff there when the file is neither added nor deleted and the
 * old line is within the old file (the caller checks those). Anything else is 'none'.
 */
export function matchDiffPosition(diff: string, oldLine: number | null, newLine: number | null): DiffPositionMatch {
  const lines = parseDiffLines(diff);
  const found = lines.some((line) => {
    if (line.type === 'new') return oldLine === null && newLine === line.newPos;
    if (line.type === 'old') return newLine === null && oldLine === line.oldPos;
    return oldLine === line.oldPos && newLine === line.newPos;
  });
  if (found) return 'line';
  if (oldLine === null || newLine === null || lines.length === 0) return 'none';
  let shift = 0;
  for (const text of diff.split('\n')) {
    const hunk = HUNK_RANGES.exec(text);
    if (!hunk) continue;
    const oldStart = Number(hunk[1]);
    const oldCount = hunk[2] === undefined ? 1 : Number(hunk[2]);
    const newCount = hunk[4] === undefined ? 1 : Number(hunk[4]);
    // A hunk that removes nothing sits after its start line and covers no old line.
    const oldEnd = oldCount === 0 ? oldStart : oldStart + oldCount - 1;
    if (oldCount > 0 && oldLine >= oldStart && oldLine <= oldEnd) return 'none';
    if (oldLine > oldEnd) shift += newCount - oldCount;
  }
  return newLine === oldLine + shift ? 'unfold' : 'none';
}
