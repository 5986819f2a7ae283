/**
 * `@username` mentions in Markdown, found as GitLab's user reference filter finds them: not
 * inside code (fenced or indented blocks, inline code spans), not after a word character (an
 * e-mail address) or a slash (a URL). A linear scan with a budget: at most MAX_TEXT characters
 * are read and at most MAX_MENTIONS distinct names kept, so no text costs more than that.
 * `@all` and `@group/path` mentions are left out (no todos for them yet).
 */
export const MENTION_BUDGET = { maxText: 1_048_576, maxMentions: 50, maxNameLength: 255 };

export interface Mentions {
  /** Every distinct name mentioned, lowercased, in order of first mention. */
  usernames: string[];
  /** The names the text starts with (`@alice @bob please look`): GitLab's directly addressed users. */
  directlyAddressed: string[];
}

function isWordChar(char: string | undefined): boolean {
  if (char === undefined) return false;
  const code = char.charCodeAt(0);
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}
const isNameChar = (char: string | undefined) => isWordChar(char) || char === '.' || char === '-';
const isSeparator = (char: string) => char === ' ' || char === '\t' || char === ',' || char === '\r';

interface Budget {
  maxText: number;
  maxMentions: number;
  maxNameLength: number;
}

export function parseMentions(text: string | null | undefined, budget: Budget = MENTION_BUDGET): Mentions {
  const usernames: string[] = [];
  const seen = new Set<string>();
  const directlyAddressed: string[] = [];
  if (!text) return { usernames, directlyAddressed };
  const source = text.length > budget.maxText ? text.slice(0, budget.maxText) : text;
  let fence: { char: string; length: number } | null = null;
  let previousBlankOrCode = true;
  let leading = true;
  for (const line of source.split('\n')) {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (opener && opener[1]![0] === fence.char && opener[1]!.length >= fence.length && line.trim() === opener[1]) fence = null;
      previousBlankOrCode = true;
      continue;
    }
    if (opener) {
      fence = { char: opener[1]![0]!, length: opener[1]!.length };
      leading = false;
      continue;
    }
    const blank = line.trim() === '';
    if (!blank && previousBlankOrCode && /^( {4}|\t)/.test(line)) {
      leading = false;
      continue;
    }
    previousBlankOrCode = blank;
    if (blank) continue;
    for (const name of mentionsInLine(line, budget.maxNameLength, leading ? directlyAddressed : null)) {
      if (seen.has(name)) continue;
      if (seen.size >= budget.maxMentions) return { usernames, directlyAddressed };
      seen.add(name);
      usernames.push(name);
    }
    leading = false;
  }
  return { usernames, directlyAddressed: [...new Set(directlyAddressed)].filter((name) => seen.has(name)) };
}

/** The names mentioned in one line outside code spans; `addressed` collects those the line starts with. */
function mentionsInLine(line: string, maxNameLength: number, addressed: string[] | null): string[] {
  const names: string[] = [];
  const spans = new BacktickRuns(line);
  let stillAddressing = addressed !== null;
  let index = 0;
  while (index < line.length) {
    const char = line[index]!;
    if (char === '`') {
      const run = spans.lengthAt(index);
      const closer = spans.nextOfLength(run, index + run);
      index = closer >= 0 ? closer + run : index + run;
      stillAddressing = false;
      continue;
    }
    if (char === '@' && !isWordChar(line[index - 1]) && line[index - 1] !== '/' && isWordChar(line[index + 1])) {
      let end = index + 1;
      while (end < line.length && isNameChar(line[end])) end += 1;
      let name = line.slice(index + 1, end);
      while (name.endsWith('.')) name = name.slice(0, -1);
      const groupPath = line[end] === '/';
      if (!groupPath && name !== '' && name.length <= maxNameLength && name.toLowerCase() !== 'all') {
        names.push(name.toLowerCase());
        if (stillAddressing) addressed!.push(name.toLowerCase());
      } else stillAddressing = false;
      index = end;
      continue;
    }
    if (stillAddressing && !isSeparator(char)) stillAddressing = false;
    index += 1;
  }
  return names;
}

/**
 * The backtick runs of a line, found once: a code span closes at the next run of the same
 * length, and since the scan only moves forward each length keeps a cursor, so finding every
 * closer costs one pass whatever the line holds.
 */
class BacktickRuns {
  private readonly lengths = new Map<number, number>();
  private readonly byLength = new Map<number, { starts: number[]; cursor: number }>();

  constructor(line: string) {
    let index = line.indexOf('`');
    while (index >= 0) {
      let end = index;
      while (line[end] === '`') end += 1;
      const length = end - index;
      this.lengths.set(index, length);
      const runs = this.byLength.get(length) ?? { starts: [], cursor: 0 };
      runs.starts.push(index);
      this.byLength.set(length, runs);
      index = line.indexOf('`', end);
    }
  }

  lengthAt(start: number): number {
    return this.lengths.get(start) ?? 1;
  }

  /** The start of the first run of exactly `length` backticks at or after `from`, or -1. */
  nextOfLength(length: number, from: number): number {
    const runs = this.byLength.get(length);
    if (!runs) return -1;
    while (runs.cursor < runs.starts.length && runs.starts[runs.cursor]! < from) runs.cursor += 1;
    return runs.cursor < runs.starts.length ? runs.starts[runs.cursor]! : -1;
  }
}
