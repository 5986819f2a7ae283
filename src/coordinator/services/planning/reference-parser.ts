/**
 * Issue references in a commit message, read as GitLab reads them: `#12`, `project#12` (a
 * project of the same namespace) and `group/project#12` anywhere in the text, and the issues
 * named after GitLab's default closing pattern ("Closes #1", "fixes: issues #2, #3 and
 * group/p#4", case-insensitive). A hand scanner: every position is visited a bounded number of
 * times, so the work is linear in the (capped) message length whatever it contains.
 */

/** Characters of a message read; the rest is ignored (GitLab renders no more of a commit either). */
export const MAX_MESSAGE_CHARS = 100_000;
/** Distinct issues one commit may reference; further ones are ignored. */
export const MAX_REFERENCES_PER_COMMIT = 50;

export interface IssueReference {
  /** `project` or `group/sub/project` as written; null for the commit's own project. */
  projectPath: string | null;
  iid: number;
}

export interface CommitMessageReferences {
  /** Every issue the message names, first mention first, each once. */
  mentioned: IssueReference[];
  /** The issues named by a closing phrase, each once (a subset of `mentioned`). */
  closing: IssueReference[];
}

const MAX_IID = 2_147_483_647;
const MAX_PATH_CHARS = 255;

/** GitLab's default `issue_closing_pattern` keywords, longest first where one begins another. */
const CLOSING_KEYWORDS = [
  'closing', 'closes', 'closed', 'close',
  'fixing', 'fixes', 'fixed', 'fix',
  'resolving', 'resolves', 'resolved', 'resolve',
  'implementing', 'implements', 'implemented', 'implement',
];

export function parseCommitReferences(message: string): CommitMessageReferences {
  const text = message.length > MAX_MESSAGE_CHARS ? message.slice(0, MAX_MESSAGE_CHARS) : message;
  const mentioned = new ReferenceSet();
  const closing = new ReferenceSet();
  for (let at = text.indexOf('#'); at !== -1 && !mentioned.full; at = text.indexOf('#', at + 1)) {
    const found = referenceEndingAt(text, at);
    if (found) mentioned.add(found.reference);
  }
  for (let at = 0; at < text.length && !closing.full; at++) {
    if (!isKeywordStart(text, at)) continue;
    const end = closingListAfterKeyword(text, at, closing);
    if (end > at) at = end - 1;
  }
  const mentionedKeys = new Set(mentioned.items.map(keyOf));
  return { mentioned: mentioned.items, closing: closing.items.filter((reference) => mentionedKeys.has(keyOf(reference))) };
}

class ReferenceSet {
  readonly items: IssueReference[] = [];
  private readonly keys = new Set<string>();

  get full(): boolean {
    return this.items.length >= MAX_REFERENCES_PER_COMMIT;
  }

  add(reference: IssueReference): void {
    const key = keyOf(reference);
    if (this.full || this.keys.has(key)) return;
    this.keys.add(key);
    this.items.push(reference);
  }
}

const keyOf = (reference: IssueReference): string => `${reference.projectPath ?? ''}#${reference.iid}`;

const isAsciiAlnum = (char: string): boolean => (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || (char >= '0' && char <= '9');
const isWordChar = (char: string | undefined): boolean =>
  char !== undefined && (isAsciiAlnum(char) || char === '_' || (char > '\x7f' && /[\p{L}\p{N}]/u.test(char)));
const isPathChar = (char: string | undefined): boolean =>
  char !== undefined && (isAsciiAlnum(char) || char === '_' || char === '.' || char === '-' || char === '/');
const isDigit = (char: string | undefined): boolean => char !== undefined && char >= '0' && char <= '9';

/**
 * The reference whose `#` is at `hash`: digits after it (then no word character), and an
 * optional project path right before it. A path that is not a plausible GitLab path (leading
 * `/`, `.` or `-`, `//`, a trailing `/`) makes no reference, as `foo//bar#1` is none in GitLab.
 */
function referenceEndingAt(text: string, hash: number): { reference: IssueReference; end: number } | null {
  let end = hash + 1;
  while (isDigit(text[end]) && end - hash <= 10) end++;
  if (end === hash + 1 || isDigit(text[end]) || isWordChar(text[end])) return null;
  const iid = Number(text.slice(hash + 1, end));
  if (iid < 1 || iid > MAX_IID) return null;
  let start = hash;
  while (start > 0 && isPathChar(text[start - 1]) && hash - start < MAX_PATH_CHARS) start--;
  if (start > 0 && (isWordChar(text[start - 1]) || isPathChar(text[start - 1]))) return null;
  const path = text.slice(start, hash);
  if (path === '') return { reference: { projectPath: null, iid }, end };
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*(\/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$/.test(path)) return null;
  return { reference: { projectPath: path, iid }, end };
}

/** A reference starting exactly at `at` (its path, if any, begins there); the position after it. */
function referenceStartingAt(text: string, at: number): { reference: IssueReference; end: number } | null {
  let hash = at;
  while (isPathChar(text[hash]) && hash - at < MAX_PATH_CHARS) hash++;
  if (text[hash] !== '#') return null;
  if (at > 0 && (isWordChar(text[at - 1]) || isPathChar(text[at - 1]))) return null;
  return referenceEndingAt(text, hash);
}

function isKeywordStart(text: string, at: number): boolean {
  const first = text.charCodeAt(at) | 0x20;
  return (first === 0x63 || first === 0x66 || first === 0x72 || first === 0x69) && !isWordChar(text[at - 1]);
}

/** ASCII case-insensitive `word` at `at`. */
function wordAt(text: string, at: number, word: string): boolean {
  if (at + word.length > text.length) return false;
  for (let i = 0; i < word.length; i++) if ((text.charCodeAt(at + i) | 0x20) !== word.charCodeAt(i)) return false;
  return true;
}

const skipSpaces = (text: string, at: number): number => {
  while (text[at] === ' ') at++;
  return at;
};

/**
 * GitLab's `(keyword)(:?) +(?:(?:issues? +)?ref(?: *,? +and +| *,? *)?)+`: the references of one
 * closing phrase go to `closing`; returns where the phrase ends (`at` when there is none).
 */
function closingListAfterKeyword(text: string, at: number, closing: ReferenceSet): number {
  const keyword = CLOSING_KEYWORDS.find((word) => wordAt(text, at, word) && /^:? /.test(text.slice(at + word.length, at + word.length + 2)));
  if (!keyword) return at;
  let position = skipSpaces(text, at + keyword.length + (text[at + keyword.length] === ':' ? 1 : 0));
  let phraseEnd = at;
  for (;;) {
    let refAt = position;
    for (const word of ['issues', 'issue']) {
      if (wordAt(text, position, word) && text[position + word.length] === ' ') {
        refAt = skipSpaces(text, position + word.length);
        break;
      }
    }
    const found = referenceStartingAt(text, refAt);
    if (!found) return phraseEnd;
    closing.add(found.reference);
    phraseEnd = found.end;
    position = separatorEnd(text, found.end);
  }
}

/** After a reference: ` *,? +and +` or ` *,? *` (possibly empty). */
function separatorEnd(text: string, at: number): number {
  let position = skipSpaces(text, at);
  if (text[position] === ',') position = skipSpaces(text, position + 1);
  const spaceBefore = position > at && text[position - 1] === ' ';
  if (spaceBefore && wordAt(text, position, 'and') && text[position + 3] === ' ') return skipSpaces(text, position + 3);
  return position;
}
