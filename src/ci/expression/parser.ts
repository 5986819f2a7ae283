/**
 * Parser of the expression language. Precedence, loosest first: `||`, `&&`, then the
 * comparison operators `== != =~ !~`; parentheses group.
 */
import { RegexpSyntaxError, UntrustedRegexp } from './regexp.ts';
import { ExpressionError, tokenize, type Token } from './lexer.ts';

export type ExpressionNode =
  | { kind: 'variable'; name: string }
  | { kind: 'string'; value: string }
  | { kind: 'null' }
  | { kind: 'pattern'; source: string; flags: string }
  | { kind: 'compare'; operator: '==' | '!=' | '=~' | '!~'; left: ExpressionNode; right: ExpressionNode }
  | { kind: 'logical'; operator: '&&' | '||'; left: ExpressionNode; right: ExpressionNode };

export const INVALID_SYNTAX = 'invalid expression syntax';

export function parseExpression(text: string, maxTokens = 100): ExpressionNode {
  const tokens = tokenize(text, maxTokens);
  if (tokens.length === 0) throw new ExpressionError(INVALID_SYNTAX);
  const parser = new Parser(tokens);
  const node = parser.parseOr();
  if (!parser.atEnd()) throw new ExpressionError(INVALID_SYNTAX);
  return node;
}

class Parser {
  private position = 0;
  constructor(private readonly tokens: Token[]) {}

  atEnd(): boolean {
    return this.position >= this.tokens.length;
  }

  parseOr(): ExpressionNode {
    let left = this.parseAnd();
    while (this.peekOperator('||')) {
      this.position++;
      left = { kind: 'logical', operator: '||', left, right: this.parseAnd() };
    }
    return left;
  }

  private parseAnd(): ExpressionNode {
    let left = this.parseComparison();
    while (this.peekOperator('&&')) {
      this.position++;
      left = { kind: 'logical', operator: '&&', left, right: this.parseComparison() };
    }
    return left;
  }

  private parseComparison(): ExpressionNode {
    const left = this.parsePrimary();
    const token = this.tokens[this.position];
    if (token?.type === 'operator' && token.operator !== '&&' && token.operator !== '||') {
      this.position++;
      const right = this.parsePrimary();
      return { kind: 'compare', operator: token.operator, left, right };
    }
    return left;
  }

  private parsePrimary(): ExpressionNode {
    const token = this.tokens[this.position++];
    if (!token) throw new ExpressionError(INVALID_SYNTAX);
    switch (token.type) {
      case 'variable':
        return { kind: 'variable', name: token.name };
      case 'string':
        return { kind: 'string', value: token.value };
      case 'null':
        return { kind: 'null' };
      case 'pattern':
        try {
          UntrustedRegexp.compile(token.source, token.flags);
        } catch (error) {
          if (error instanceof RegexpSyntaxError) throw new ExpressionError(INVALID_SYNTAX);
          throw error;
        }
        return { kind: 'pattern', source: token.source, flags: token.flags };
      case 'paren': {
        if (token.paren === ')') throw new ExpressionError(INVALID_SYNTAX);
        const inner = this.parseOr();
        const closing = this.tokens[this.position++];
        if (closing?.type !== 'paren' || closing.paren !== ')') throw new ExpressionError(INVALID_SYNTAX);
        return inner;
      }
      case 'operator':
        throw new ExpressionError(INVALID_SYNTAX);
    }
  }

  private peekOperator(operator: '&&' | '||'): boolean {
    const token = this.tokens[this.position];
    return token?.type === 'operator' && token.operator === operator;
  }
}
