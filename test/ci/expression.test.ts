import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ExpressionError, expressionIsTrue, parseExpression } from '../../src/ci/expression/index.ts';
import { boundedCall } from '../helpers/bounded-call.ts';

const EXPRESSION_MODULE = new URL('../../src/ci/expression/index.ts', import.meta.url);

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
    assert.equal(check('$MISSING !~ /xy/'), true);
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

  test('a pattern has two characters or more between its slashes, the last not a backslash (GitLab: `/./` is no pattern)', () => {
    for (const bad of ['$A =~ /./', '$A =~ /x/', '$A =~ //', '$A !~ /a\\/']) assert.throws(() => parseExpression(bad), /Unknown lexeme found!/, bad);
    assert.equal(check('$BRANCH =~ /.n/'), true);
    assert.equal(check('$BRANCH =~ /ma\\/?/'), true);
  });

  test('regular expressions are RE2: no backreferences, look-around or possessive repeats', () => {
    for (const bad of ['$A =~ /(a)\\1/', '$A =~ /(?=a)/', '$A =~ /(?<=a)b/', '$A !~ /(?!a)/', '$A =~ /a++/', '$A =~ /\\Z/']) {
      assert.throws(() => parseExpression(bad), ExpressionError, bad);
    }
    assert.doesNotThrow(() => parseExpression('$A =~ /(?P<name>a)\\pL\\d{1,3}[[:alpha:]]/'));
  });

  test('RE2 semantics: ^ and $ anchor the text unless m, \\A and \\z always, s and U flags', () => {
    const lookup = (name: string): string | undefined => ({ M: 'first\nsecond', U: 'aaa' })[name];
    assert.equal(expressionIsTrue('$M =~ /^second$/', lookup), false);
    assert.equal(expressionIsTrue('$M =~ /^second$/m', lookup), true);
    assert.equal(expressionIsTrue('$M =~ /\\Asecond/m', lookup), false);
    assert.equal(expressionIsTrue('$M =~ /first\\z/m', lookup), false);
    assert.equal(expressionIsTrue('$M =~ /first.second/', lookup), false);
    assert.equal(expressionIsTrue('$M =~ /first.second/s', lookup), true);
    assert.equal(expressionIsTrue('$U =~ /^a+?$/U', lookup), true);
  });

  test('GitLab: nothing on the right of !~ is true; a string that is no regexp is searched for the left text', () => {
    const lookup = (name: string): string | undefined => ({ A: 'abc', B: 'xxabcxx', BAD: '/(a)\\1/' })[name];
    assert.equal(expressionIsTrue('$A !~ $MISSING', lookup), true);
    assert.equal(expressionIsTrue('$A =~ $MISSING', lookup), false);
    assert.equal(expressionIsTrue('$A =~ $B', lookup), true);
    assert.equal(expressionIsTrue('$B =~ $A', lookup), false);
    assert.equal(expressionIsTrue('"(a)" =~ $BAD', lookup), true, 'an invalid regexp in a variable is a plain string');
  });

  test('a catastrophic pattern on a 40-character value returns (linear time)', async () => {
    const value = `${'a'.repeat(40)}!`;
    assert.equal(await boundedCall(EXPRESSION_MODULE, 'expressionIsTrue', [`"${value}" =~ /^(a+)+$/`, null], 10_000), false);
    assert.equal(await boundedCall(EXPRESSION_MODULE, 'expressionIsTrue', [`"${value}" =~ /^(a|aa)+$/`, null], 10_000), false);
    assert.equal(await boundedCall(EXPRESSION_MODULE, 'expressionIsTrue', [`"${value}" =~ /^(a+)+!$/`, null], 10_000), true);
  });

  test('too many tokens', () => {
    const long = Array.from({ length: 60 }, (_, index) => `$V${index}`).join(' && ');
    assert.throws(() => parseExpression(long, 100), /Too many tokens!/);
  });
});
