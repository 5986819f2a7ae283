export { ExpressionError, TOO_MANY_TOKENS, UNKNOWN_LEXEME, tokenize, type Token } from './lexer.ts';
export { INVALID_SYNTAX, parseExpression, type ExpressionNode } from './parser.ts';
export { fabricateRegexp, isValidRegexp, RegexpSyntaxError, UntrustedRegexp } from './regexp.ts';
export { evaluateExpression, expressionIsTrue, type VariableLookup } from './evaluate.ts';
