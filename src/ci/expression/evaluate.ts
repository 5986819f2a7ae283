/**
 * Evaluation with GitLab's (Ruby) semantics: a variable is its value or nil; `&&`/`||`
 * return an operand (Ruby truthiness: only nil and false are false); the statement is
 * true when the result is "present" (not nil, not false, not a blank string).
 */
import { parseExpression, type ExpressionNode } from './parser.ts';
import { buildRegExp } from './regexp.ts';

type Value = string | null | boolean | RegExp;

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
      return buildRegExp(node.source, node.flags);
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
  const pattern = right instanceof RegExp ? right : typeof right === 'string' ? patternFromString(right) : null;
  if (!pattern) return false;
  const text = typeof left === 'string' ? left : left === null || left === false ? '' : String(left);
  const matches = pattern.test(text);
  return operator === '=~' ? matches : !matches;
}

function valuesEqual(left: Value, right: Value): boolean {
  if (left instanceof RegExp || right instanceof RegExp) {
    return left instanceof RegExp && right instanceof RegExp && left.source === right.source && left.flags === right.flags;
  }
  return left === right;
}

/** A variable holding `/regex/flags` can be used on the right of `=~`. */
function patternFromString(text: string): RegExp | null {
  const match = /^\/(.*)\/([ismU]*)$/s.exec(text);
  if (!match) return null;
  try {
    return buildRegExp(match[1] ?? '', match[2] ?? '');
  } catch {
    return null;
  }
}


function isRubyTruthy(value: Value): boolean {
  return value !== null && value !== false;
}

function isPresent(value: Value): boolean {
  if (value === null || value === false) return false;
  if (typeof value === 'string') return value.trim() !== '';
  return true;
}
