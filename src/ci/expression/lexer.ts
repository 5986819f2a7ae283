/**
 * Tokens of the `rules:if` / `only:variables` expression language
 * (GitLab `lib/gitlab/ci/pipeline/expression/lexer.rb`).
 */

export type Token =
  | { type: 'variable'; name: string }
  | { type: 'string'; value: string }
  | { type: 'null' }
  | { type: 'pattern'; source: string; flags: string }
  | { type: 'operator'; operator: '==' | '!=' | '=~' | '!~' | '&&' | '||' }
  | { type: 'paren'; paren: '(' | ')' };

export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionError';
  }
}

export const UNKNOWN_LEXEME = 'Unknown lexeme found!';
export const TOO_MANY_TOKENS = 'Too many tokens!';

const VARIABLE = /^\$([A-Za-z0-9_]+)/;
const DOUBLE_QUOTED = /^"([^"]*)"/;
const SINGLE_QUOTED = /^'([^']*)'/;
// GitLab's Pattern lexeme: at least two characters between the slashes, the last not a
// backslash (`/./` is no pattern: "invalid expression syntax").
const PATTERN = /^\/((?:[^/]|\\\/)+[^\\])\/([ismU]*)/;
const NULL = /^null\b/;
const OPERATORS = ['==', '!=', '=~', '!~', '&&', '||'] as const;

export function tokenize(text: string, maxTokens: number): Token[] {
  const tokens: Token[] = [];
  let rest = text;
  while (true) {
    rest = rest.replace(/^\s+/, '');
    if (rest === '') return tokens;
    if (tokens.length >= maxTokens) throw new ExpressionError(TOO_MANY_TOKENS);
    const [token, length] = nextToken(rest);
    tokens.push(token);
    rest = rest.slice(length);
  }
}

function nextToken(rest: string): [Token, number] {
  let match = VARIABLE.exec(rest);
  if (match) return [{ type: 'variable', name: match[1] ?? '' }, match[0].length];
  match = DOUBLE_QUOTED.exec(rest) ?? SINGLE_QUOTED.exec(rest);
  if (match) return [{ type: 'string', value: match[1] ?? '' }, match[0].length];
  match = NULL.exec(rest);
  if (match) return [{ type: 'null' }, match[0].length];
  match = PATTERN.exec(rest);
  if (match) return [{ type: 'pattern', source: match[1] ?? '', flags: match[2] ?? '' }, match[0].length];
  for (const operator of OPERATORS) {
    if (rest.startsWith(operator)) return [{ type: 'operator', operator }, 2];
  }
  if (rest[0] === '(' || rest[0] === ')') return [{ type: 'paren', paren: rest[0] }, 1];
  throw new ExpressionError(UNKNOWN_LEXEME);
}
