/**
 * Evaluation with GitLab's (Ruby) semantics: a variable is its value or nil; `&&`/`||`
 * return an operand (Ruby truthiness: only nil and false are false); the statement is
 * true when the result is "present" (not nil, not false, not a blank string).
 */
import { parseExpression, type ExpressionNode } from './parser.ts';
import { fabricateRegexp, UntrustedRegexp } from './regexp.ts';

type Value = string | null | boolean | UntrustedRegexp;

export type VariableLookup = (name: string) => string | undefined;

export function evaluateExpression(node: ExpressionNode, lookup: VariableLookup): boolean {
  return isPresent(evaluateNode(node, lookup));
}

/** Parses and evaluates; throws ExpressionError on bad syntax. */
export function expressionIsTrue(text: string, lookup: VariableLookup, maxTokens = 100): boolean {
  return evaluateExpression(parseExpression(text, maxTokens), lookup);
}

function evaluateNode(node: ExpressionNode, lookup: VariableLookup): Value {
  switch (node.kind) {
    case 'variable':
      return lookup(node.name) ?? null;
    case 'string':
      return node.value;
    case 'null':
      return null;
    case 'pattern':
      return UntrustedRegexp.compile(node.source, node.flags);
    case 'logical': {
      const left = evaluateNode(node.left, lookup);
      if (node.operator === '&&') return isRubyTruthy(left) ? evaluateNode(node.right, lookup) : left;
      return isRubyTruthy(left) ? left : evaluateNode(node.right, lookup);
    }
    case 'compare':
      return compare(node.operator, evaluateNode(node.left, lookup), evaluateNode(node.right, lookup));
  }
}

function compare(operator: '==' | '!=' | '=~' | '!~', left: Value, right: Value): boolean {
  if (operator === '==') return valuesEqual(left, right);
  if (operator === '!=') return !valuesEqual(left, right);
  // GitLab: nothing on the right never matches; `!~` is then true.
  if (right === null || right === false) return operator === '!~';
  const text = typeof left === 'string' ? left : left === null || left === false ? '' : String(left);
  const matches = matchesRight(right, text);
  return operator === '=~' ? matches : !matches;
}

/**
 * A variable holding `/regex/flags` is a regexp on the right of `=~`. Any other string is
 * searched for the left text, as GitLab's `String#scan` does with it.
 */
function matchesRight(right: string | true | UntrustedRegexp, text: string): boolean {
  if (right instanceof UntrustedRegexp) return right.test(text);
  const value = String(right);
  return fabricateRegexp(value)?.test(text) ?? value.includes(text);
}

function valuesEqual(left: Value, right: Value): boolean {
  if (left instanceof UntrustedRegexp || right instanceof UntrustedRegexp) {
    return left instanceof UntrustedRegexp && right instanceof UntrustedRegexp && left.equals(right);
  }
  return left === right;
}

function isRubyTruthy(value: Value): boolean {
  return value !== null && value !== false;
}

function isPresent(value: Value): boolean {
  if (value === null || value === false) return false;
  if (typeof value === 'string') return value.trim() !== '';
  return true;
}
