import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isObjectId, isValidLookupPath, isValidRevision } from '../../../src/storage/git/validate.ts';

describe('revision validation', () => {
  it('accepts branches, tags, full refs, HEAD and full or abbreviated object ids', () => {
    for (const revision of [
      'main',
      'feature/login',
      'release-1.0',
      'v1.2.3',
      'refs/heads/main',
      'refs/tags/v1.0',
      'HEAD',
      'a1b2',
      'deadbeef',
      '0123456789abcdef0123456789abcdef01234567',
      'naïve-branch',
      'a@b',
    ]) {
      assert.equal(isValidRevision(revision), true, revision);
    }
  });

  it('keeps ancestry suffixes', () => {
    for (const revision of ['main~1', 'main~', 'main^', 'main^2', 'HEAD~3^2~1', 'deadbeef~2', 'refs/heads/main~10']) {
      assert.equal(isValidRevision(revision), true, revision);
    }
  });

  it('refuses revision syntax beyond names and ancestry', () => {
    for (const revision of [
      '',
      'main:README.md',
      'main:./README.md',
      ':/message',
      'main^{tree}',
      'main^{/regex}',
      'main@{0}',
      'main@{1000}',
      '@{u}',
      '@{-1}',
      '@',
      'HEAD@{yesterday}',
      'main..other',
      'main...other',
      '-main',
      '--all',
      '--output=/tmp/x',
      'main\nHEAD',
      'main\u0000',
      'main\t',
      'ma in',
      'main*',
      'main?',
      'ma[in',
      'ma\\in',
      'refs/heads/.hidden',
      'main.lock',
      'main.',
      '/main',
      'main/',
      'a//b',
      'main~x',
      'main~1:README.md',
      'main^1^{commit}',
      'main~1234567',
      'x'.repeat(1025),
    ]) {
      assert.equal(isValidRevision(revision), false, JSON.stringify(revision));
    }
  });

  it('tells object ids apart', () => {
    assert.equal(isObjectId('abc'), false);
    assert.equal(isObjectId('abcd'), true);
    assert.equal(isObjectId('ABCD'), true);
    assert.equal(isObjectId('abcg'), false);
    assert.equal(isObjectId('a'.repeat(65)), false);
  });
});

describe('lookup path validation', () => {
  it('accepts the root and plain relative paths', () => {
    for (const value of ['', 'README.md', 'dir/file.txt', 'dir with space/é.txt', '.gitlab-ci.yml', 'a/.b', 'x:y', 'a^{b}']) {
      assert.equal(isValidLookupPath(value), true, value);
    }
  });

  it('refuses relative segments, empty segments and control characters', () => {
    for (const value of ['.', './README.md', '..', '../x', 'a/../b', 'a/./b', 'a//b', 'a/', 'a\nb', 'a\u0000b', 'x'.repeat(4097)]) {
      assert.equal(isValidLookupPath(value), false, JSON.stringify(value));
    }
  });
});
