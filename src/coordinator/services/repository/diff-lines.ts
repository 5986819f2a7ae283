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
