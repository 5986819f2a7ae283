/**
 * Wildcard matching of names and paths from user text, in time linear in the text whatever
 * the pattern (no backtracking regular expression):
 *
 * - `pathGlobMatches`: Ruby `File.fnmatch` with FNM_PATHNAME | FNM_EXTGLOB | FNM_DOTMATCH,
 *   as GitLab matches `rules:changes` and `rules:exists`. `*` and `?` stop at `/`, `**\/`
 *   spans directories, `[...]` is a set (`[!...]`, `[^...]` negated), `{a,b}` alternates,
 *   `\` escapes, dot files are matched like any other. The glob becomes an RE2 program
 *   (re2js), whose matching is linear.
 * - `wildcardMatches`: `*` alone is special and matches any run of characters, `/` included
 *   (protected branch names, environment scopes).
 */
import { RE2JS } from 're2js';

/** Whether `pattern` (only `*` special) matches the whole of `text`. Leftmost placement of each part is optimal. */
export function wildcardMatches(pattern: string, text: string): boolean {
  if (!pattern.includes('*')) return pattern === text;
  const parts = pattern.split('*');
  const head = parts[0] ?? '';
  const tail = parts[parts.length - 1] ?? '';
  if (text.length < head.length + tail.length || !text.startsWith(head) || !text.endsWith(tail)) return false;
  const end = text.length - tail.length;
  let position = head.length;
  for (const part of parts.slice(1, -1)) {
    if (part === '') continue;
    const found = text.indexOf(part, position);
    if (found === -1 || found + part.length > end) return false;
    position = found + part.length;
  }
  return true;
}

/** Whether the glob matches the whole path; a leading `./` or `/` of either is ignored. */
export function pathGlobMatches(glob: string, path: string): boolean {
  return compiledGlob(withoutLeadingDot(glob)).testExact(withoutLeadingDot(path));
}

/** A matcher for one glob, to test many paths. */
export function pathGlobMatcher(glob: string): (path: string) => boolean {
  const compiled = compiledGlob(withoutLeadingDot(glob));
  return (path) => compiled.testExact(withoutLeadingDot(path));
}

/** Whether the glob uses any wildcard (else it names one path). */
export function isLiteralGlob(glob: string): boolean {
  return !/[*?[{\\]/.test(glob);
}

function withoutLeadingDot(text: string): string {
  return text.replace(/^\.?\//, '');
}

const CACHE_SIZE = 512;
const compiledGlobs = new Map<string, RE2JS>();

function compiledGlob(glob: string): RE2JS {
  const cached = compiledGlobs.get(glob);
  if (cached) return cached;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(globToRe2(glob));
  } catch {
    // A glob RE2 cannot take (too large a program): it then names itself only.
    compiled = RE2JS.compile(RE2JS.quote(glob));
  }
  if (compiledGlobs.size >= CACHE_SIZE) {
    const oldest = compiledGlobs.keys().next().value;
    if (oldest !== undefined) compiledGlobs.delete(oldest);
  }
  compiledGlobs.set(glob, compiled);
  return compiled;
}

/** The glob in RE2 syntax. Exported for tests. */
export function globToRe2(glob: string): string {
  const closers = braceClosers(glob);
  let out = '';
  // One entry per brace we are inside: whether the brace stood at the start of a segment.
  const braces: boolean[] = [];
  let segmentStart = true;
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index] ?? '';
    const startsSegment: boolean = segmentStart;
    segmentStart = false;
    if (char === '\\') {
      // Ruby ignores a trailing `\`.
      if (++index >= glob.length) break;
      const point = glob.codePointAt(index) ?? 0;
      out += literal(point);
      if (point > 0xffff) index++;
    } else if (char === '*') {
      let last = index;
      while (glob[last + 1] === '*') last++;
      if (startsSegment && last === index + 1 && glob[last + 1] === '/') {
        out += '(?:[^/]*/)*';
        index = last + 1;
        segmentStart = true;
      } else {
        out += '[^/]*';
        index = last;
      }
    } else if (char === '?') {
      out += '[^/]';
    } else if (char === '[' && bracketSet(glob, index)) {
      const set = bracketSet(glob, index);
      out += set?.re2 ?? '';
      index = set?.end ?? index;
    } else if (char === '{' && closers.has(index)) {
      braces.push(startsSegment);
      out += '(?:';
      segmentStart = startsSegment;
    } else if (char === ',' && braces.length > 0) {
      out += '|';
      segmentStart = braces[braces.length - 1] ?? false;
    } else if (char === '}' && braces.length > 0) {
      braces.pop();
      out += ')';
    } else {
      const point = glob.codePointAt(index) ?? 0;
      out += literal(point);
      if (point > 0xffff) index++;
      segmentStart = char === '/';
    }
  }
  return out + ')'.repeat(braces.length);
}

/** Positions of the `{` that have a matching `}` (nesting and escapes respected). */
function braceClosers(glob: string): Set<number> {
  const matched = new Set<number>();
  const stack: number[] = [];
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index];
    if (char === '\\') index++;
    else if (char === '{') stack.push(index);
    else if (char === '}') {
      const opening = stack.pop();
      if (opening !== undefined) matched.add(opening);
    }
  }
  return matched;
}

/**
 * `[...]` from `start` (Ruby's rules: `!` or `^` first negates, the first `]` closes, `\`
 * escapes, `a-z` is a range); never matches `/`. Null when unclosed (the `[` is literal).
 */
function bracketSet(glob: string, start: number): { re2: string; end: number } | null {
  let index = start + 1;
  const negated = glob[index] === '!' || glob[index] === '^';
  if (negated) index++;
  const ranges: Array<[number, number]> = [];
  while (index < glob.length && glob[index] !== ']') {
    const [low, afterLow] = setChar(glob, index);
    if (low === undefined) return null;
    index = afterLow;
    if (glob[index] === '-' && glob[index + 1] !== ']' && index + 1 < glob.length) {
      const [high, afterHigh] = setChar(glob, index + 1);
      if (high === undefined) return null;
      index = afterHigh;
      if (low <= high) ranges.push([low, high]);
    } else {
      ranges.push([low, low]);
    }
  }
  if (index >= glob.length) return null;
  const slash = '/'.codePointAt(0) ?? 47;
  const pieces = ranges.flatMap(([low, high]): Array<[number, number]> => {
    if (low > slash || high < slash) return [[low, high]];
    return [
      ...(low < slash ? [[low, slash - 1] as [number, number]] : []),
      ...(high > slash ? [[slash + 1, high] as [number, number]] : []),
    ];
  });
  const body = pieces.map(([low, high]) => (low === high ? codePoint(low) : `${codePoint(low)}-${codePoint(high)}`)).join('');
  if (negated) return { re2: `[^/${body}]`, end: index };
  return { re2: body === '' ? '[^\\x00-\\x{10FFFF}]' : `[${body}]`, end: index };
}

function setChar(glob: string, index: number): [number | undefined, number] {
  let at = index;
  if (glob[at] === '\\' && at + 1 < glob.length) at++;
  const point = glob.codePointAt(at);
  return [point, at + (point !== undefined && point > 0xffff ? 2 : 1)];
}

function codePoint(point: number): string {
  return `\\x{${point.toString(16)}}`;
}

function literal(point: number): string {
  const char = String.fromCodePoint(point);
  return /^[A-Za-z0-9_/ -]$/.test(char) ? char : codePoint(point);
}
