import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ExpressionError, expressionIsTrue, parseExpression } from '../../src/ci/expression/index.ts';

const variables: Record<string, string> = { BRANCH: 'main', EMPTY: '', BLANK: '  ', PATTERN: '/^ma/', TAG: 'v1.2.3' };
const lookup = (name: string): string | undefined => variables[name];
const check = (text: string): boolean => expressionIsTrue(text, lookup);

describe('expression language', () => {
  test('a variable is true when present and not blank', () => {
    assert.equal(check('$BRANCH'), true);
    assert.equal(check('$EMPTY'), false);
    assert.equal(check('$BLANK'), false);
    assert.equal(check('$MISSING'), false);
  });

  test('== and != compare strings and null', () => {
    assert.equal(check('$BRANCH == "main"'), true);
    assert.equal(check("$BRANCH == 'main'"), true);
    assert.equal(check('$BRANCH != "main"'), false);
    assert.equal(check('$MISSING == null'), true);
    assert.equal(check('$EMPTY == null'), false);
    assert.equal(check('$EMPTY == ""'), true);
    assert.equal(check('"main" == $BRANCH'), true);
  });

  test('=~ and !~ match unanchored regexes with flags', () => {
    assert.equal(check('$BRANCH =~ /ai/'), true);
    assert.equal(check('$BRANCH =~ /^MAIN$/'), false);
    assert.equal(check('$BRANCH =~ /^MAIN$/i'), true);
    assert.equal(check('$BRANCH !~ /^feature/'), true);
    assert.equal(check('$TAG =~ /^v\\d+\\.\\d+/'), true);
    assert.equal(check('$TAG =~ /\\Av1/'), true);
  });

  test('a missing variable matches like an empty string', () => {
    assert.equal(check('$MISSING =~ /^$/'), true);
    assert.equal(check('$MISSING !~ /x/'), true);
  });

  test('a variable holding /regex/ works on the right of =~', () => {
    assert.equal(check('$BRANCH =~ $PATTERN'), true);
  });

  test('&& binds tighter than ||', () => {
    assert.equal(check('$MISSING && $BRANCH || $TAG'), true);
    assert.equal(check('$BRANCH == "x" || $TAG == "v1.2.3" && $BRANCH == "main"'), true);
    assert.equal(check('$BRANCH == "x" || $TAG == "v0" && $BRANCH == "main"'), false);
  });

  test('parentheses group', () => {
    assert.equal(check('($BRANCH == "x" || $TAG == "v1.2.3") && $BRANCH == "main"'), true);
    assert.equal(check('($BRANCH == "main" || $TAG) && $MISSING'), false);
  });

  test('Ruby truthiness: an empty string operand of && is truthy, the result is judged at the end', () => {
    assert.equal(check('$EMPTY && $BRANCH'), true);
    assert.equal(check('$MISSING || $EMPTY'), false);
  });

  test('syntax errors', () => {
    for (const bad of ['$A = "b"', '$A ==', '== "a"', '($A', '$A)', '', '$A === "b"', '$A =~ /[/']) {
      assert.throws(() => parseExpression(bad), ExpressionError, bad);
    }
    assert.throws(() => parseExpression('$A # comment'), /Unknown lexeme found!/);
  });

  test('too many tokens', () => {
    const long = Array.from({ length: 60 }, (_, index) => `$V${index}`).join(' && ');
    assert.throws(() => parseExpression(long, 100), /Too many tokens!/);
  });
});
