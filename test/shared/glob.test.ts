import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pathGlobMatches, wildcardMatches } from '../../src/shared/glob.ts';
import { boundedCall } from '../helpers/bounded-call.ts';

const GLOB_MODULE = new URL('../../src/shared/glob.ts', import.meta.url);
const LONG = 'a'.repeat(10_000);
const HOSTILE = '*a*a*a*a*a*a*a*a*b';
// A linear matcher answers in milliseconds; a backtracking one would take hours.
const BOUND_MS = 10_000;

// Answers of Ruby 3.1's File.fnmatch(glob, path, FNM_PATHNAME | FNM_EXTGLOB | FNM_DOTMATCH).
const FNMATCH: Array<[string, string, boolean]> = [
  ['**/*.rb', 'a/b/c.rb', true],
  ['**/*.rb', 'c.rb', true],
  ['*.rb', 'a/c.rb', false],
  ['{a,b}/**/c', 'b/x/y/c', true],
  ['{a,b}/**/c', 'a/c', true],
  ['a/**/b', 'a/b', true],
  ['a/**/b', 'a/x/y/b', true],
  ['***/x', 'x', false],
  ['a/***/b', 'a/x/y/b', false],
  ['src/**', 'src/a', true],
  ['src/**', 'src/a/b', false],
  ['*', '.hidden', true],
  ['*/.git/*', 'd/.git/c', true],
  ['?', '/', false],
  ['[!a]', 'b', true],
  ['[!a]', 'a', false],
  ['[a-c]x', 'bx', true],
  ['[/]', '/', false],
  ['a[!/]b', 'a/b', false],
  ['[]]', ']', false],
  ['[\\]]', ']', true],
  ['\\*', '*', true],
  ['\\*', 'a', false],
  ['*.{js,ts}', 'a.ts', true],
  ['*.{js,ts}', 'q/a.ts', false],
  ['a{b,c{d,e}}f', 'acef', true],
  ['a{b,c{d,e}}f', 'acf', false],
  ['a{,}b', 'ab', true],
  ['{**/,}x', 'y/x', true],
  ['a}', 'a}', true],
  ['🙂*', '🙂x', true],
  ['[🙂-🙃]', '🙂', true],
];

describe('path globs: Ruby File.fnmatch with FNM_PATHNAME | FNM_EXTGLOB | FNM_DOTMATCH', () => {
  test('match as Ruby does', () => {
    for (const [glob, path, expected] of FNMATCH) assert.equal(pathGlobMatches(glob, path), expected, `${glob} ~ ${path}`);
  });

  test('a leading ./ or / of glob or path is ignored', () => {
    assert.equal(pathGlobMatches('./docs/*.md', 'docs/a.md'), true);
    assert.equal(pathGlobMatches('docs/*.md', '/docs/a.md'), true);
  });

  test(`${HOSTILE} against a 10,000-character name returns`, async () => {
    assert.equal(await boundedCall(GLOB_MODULE, 'pathGlobMatches', [HOSTILE, LONG], BOUND_MS), false);
    assert.equal(await boundedCall(GLOB_MODULE, 'pathGlobMatches', [HOSTILE, `${LONG}b`], BOUND_MS), true);
    assert.equal(await boundedCall(GLOB_MODULE, 'pathGlobMatches', ['{a,aa}{a,aa}{a,aa}{a,aa}{a,aa}{a,aa}{a,aa}{a,aa}b', LONG], BOUND_MS), false);
  });
});

describe('wildcards: `*` alone, across `/` (protected branches, environment scopes)', () => {
  test('match whole names', () => {
    assert.equal(wildcardMatches('release/*', 'release/1.0/hotfix'), true);
    assert.equal(wildcardMatches('*-stable', '1-0-stable'), true);
    assert.equal(wildcardMatches('*-stable', '1-0-stable-x'), false);
    assert.equal(wildcardMatches('a*b*c', 'abc'), true);
    assert.equal(wildcardMatches('a*b*c', 'acb'), false);
    assert.equal(wildcardMatches('ab*ba', 'aba'), false);
    assert.equal(wildcardMatches('review/*', 'review/'), true);
    assert.equal(wildcardMatches('v1.?', 'v1.0'), false, '? is literal');
    assert.equal(wildcardMatches('feature[1]', 'feature[1]'), true, '[ is literal');
    assert.equal(wildcardMatches('main', 'main'), true);
    assert.equal(wildcardMatches('*', ''), true);
  });

  test(`${HOSTILE} against a 10,000-character name returns`, async () => {
    assert.equal(await boundedCall(GLOB_MODULE, 'wildcardMatches', [HOSTILE, LONG], BOUND_MS), false);
    assert.equal(await boundedCall(GLOB_MODULE, 'wildcardMatches', [HOSTILE, `${LONG}/b`], BOUND_MS), true);
  });
});
