/**
 * Quoted scalars whose continuation lines sit no deeper than their parent, which Ruby's YAML
 * parser (libyaml) accepts and the yaml library refuses ("Missing closing quote"):
 *
 *     script:
 *       - 'if [ -n "$A" ]; then
 *            make;
 *          fi
 *       '
 *
 * A quoted scalar folds its line breaks and drops each continuation line's leading blanks,
 * so indenting those lines further changes no value: the loader re-indents the scalar the
 * error names and parses again.
 */
import { CST, Parser } from 'yaml';

/** At most this many scalars are re-indented in one file (each costs a parse). */
export const MAX_QUOTED_REPAIRS = 32;

/**
 * The text with the quoted scalar that ends unclosed at `errorOffset` re-indented deeper than
 * its opening quote; null when there is no such scalar, it has no closing quote at all, or a
 * continuation line is a document marker (which libyaml refuses as well).
 */
export function reindentQuotedScalar(text: string, errorOffset: number): string | null {
  const start = unclosedQuotedScalarAt(text, errorOffset);
  if (start === null) return null;
  const close = closingQuote(text, start);
  if (close === null) return null;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const required = start - lineStart + 1;
  let result = text.slice(0, start);
  let cursor = start;
  let changed = false;
  for (let newline = text.indexOf('\n', start); newline !== -1 && newline < close; newline = text.indexOf('\n', newline + 1)) {
    const next = newline + 1;
    const line = text.slice(next, text.indexOf('\n', next) === -1 ? text.length : text.indexOf('\n', next));
    if (/^(---|\.\.\.)(\s|$)/.test(line)) return null;
    const blanks = /^ */.exec(line)?.[0].length ?? 0;
    if (line.trim() === '' || blanks >= required) continue;
    result += text.slice(cursor, next) + ' '.repeat(required - blanks);
    cursor = next;
    changed = true;
  }
  return changed ? result + text.slice(cursor) : null;
}

/** Offset of the opening quote of the quoted scalar the parser cut short at `errorOffset`. */
function unclosedQuotedScalarAt(text: string, errorOffset: number): number | null {
  let found: number | null = null;
  for (const token of new Parser().parse(text)) {
    if (token.type !== 'document') continue;
    CST.visit(token, (item) => {
      for (const node of [item.key, item.value]) {
        if (!node || (node.type !== 'single-quoted-scalar' && node.type !== 'double-quoted-scalar')) continue;
        if (node.offset < errorOffset && errorOffset <= node.offset + node.source.length) found = node.offset;
      }
    });
  }
  return found;
}

/** Offset of the quote closing the scalar opened at `start` (`''` and `\"` escape one). */
function closingQuote(text: string, start: number): number | null {
  const quote = text[start];
  for (let index = start + 1; index < text.length; index++) {
    const char = text[index];
    if (quote === '"' && char === '\\') index++;
    else if (char === quote) {
      if (quote === "'" && text[index + 1] === "'") index++;
      else return index;
    }
  }
  return null;
}
