import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pathKey } from '../../src/ci/diagnostics.ts';
import { DEFAULT_LIMITS } from '../../src/ci/limits.ts';
import { loadYaml } from '../../src/ci/yaml-loader.ts';

describe('Ruby-symbol keys, as GitLab reads them', () => {
  test("python-gitlab's example file (`:test_job:` / `:script:`) loads as test_job and script", () => {
    const text = ['---', ':test_job:', '  :script: echo 1', ''].join('\n');
    const loaded = loadYaml(text, '.gitlab-ci.yml', DEFAULT_LIMITS);
    assert.ok(loaded.ok);
    assert.deepEqual(loaded.value, { test_job: { script: 'echo 1' } });
    assert.equal(loaded.positions.lines.get(pathKey(['test_job', 'script'])), 3, 'diagnostics name the key as read');
  });

  test('quoted keys stay strings; a symbol may be quoted inside; a lone colon and values are left alone', () => {
    const text = [`":kept":`, `  a: 1`, `:"two words":`, `  script: [":value"]`, `job:`, `  script: :not_a_key`, ''].join('\n');
    const loaded = loadYaml(text, '.gitlab-ci.yml', DEFAULT_LIMITS);
    assert.ok(loaded.ok);
    assert.deepEqual(loaded.value, { ':kept': { a: 1 }, 'two words': { script: [':value'] }, job: { script: ':not_a_key' } });
  });

  test('keys under an anchor are read the same through an alias', () => {
    const text = ['.base: &base', '  :stage: build', 'job:', '  <<: *base', '  :script: make', ''].join('\n');
    const loaded = loadYaml(text, '.gitlab-ci.yml', DEFAULT_LIMITS);
    assert.ok(loaded.ok);
    assert.deepEqual(loaded.value, { '.base': { stage: 'build' }, job: { stage: 'build', script: 'make' } });
  });
});
