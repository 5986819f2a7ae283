import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { CompileSandbox, CPU_LIMIT_MESSAGE, MEMORY_LIMIT_MESSAGE } from '../../src/ci-sandbox/index.ts';
import { compilePipeline, type CompileContext, type CompileResult } from '../../src/ci/index.ts';

const LONG_NAME = 'a'.repeat(10_000);
const VALUE = `${'a'.repeat(40)}!`;
/** 0.8 MB of jobs: seconds to load. */
const SLOW_CI = Array.from({ length: 25_000 }, (_, index) => `job-${index}:\n  script: echo ${index}\n`).join('');

function context(overrides: Partial<CompileContext> = {}): CompileContext {
  return {
    project: { id: 1, path: 'group/app', defaultBranch: 'main' },
    ref: 'main',
    refType: 'branch',
    sha: 'a'.repeat(40),
    source: 'push',
    files: { readFile: async () => null },
    ...overrides,
  };
}

const names = (result: CompileResult) => ({ status: result.status, errors: result.errors.map((error) => error.message), jobs: result.jobs.map((job) => job.name) });

describe('the compile sandbox', () => {
  const sandbox = new CompileSandbox({ workers: 1, limits: { maxCompileCpuMs: 5_000 } });
  after(() => sandbox.close());

  test('compiles as compilePipeline does, its files read through the caller', async () => {
    const files: Record<string, string> = { 'ci/build.yml': 'build:\n  script: make\n  rules:\n    - exists: ["src/*.c"]\n', 'src/main.c': 'int main;' };
    const reads: string[] = [];
    const reader = {
      readFile: async (path: string) => (reads.push(path), files[path] ?? null),
      listFiles: async () => Object.keys(files),
    };
    const text = 'include: ci/build.yml\ntest:\n  script: make test\n  needs: [build]\n';
    const inThread = await compilePipeline(text, context({ files: reader }));
    const sandboxed = await sandbox.compile(text, context({ files: reader }));
    assert.deepEqual(sandboxed, inThread);
    assert.deepEqual(names(sandboxed), { status: 'created', errors: [], jobs: ['build', 'test'] });
    assert.deepEqual(reads, ['ci/build.yml', 'ci/build.yml']);
  });

  test("rethrows the reader's own error", async () => {
    class GitFailure extends Error {}
    const failure = new GitFailure('git cat-file failed');
    const reader = { readFile: async () => Promise.reject(failure) };
    await assert.rejects(sandbox.compile('include: a.yml\njob:\n  script: x\n', context({ files: reader })), (error) => error === failure);
  });

  test('past the compute-time deadline: a configuration error, and the next compile works', async () => {
    const slow = await sandbox.compile(SLOW_CI, context({ limits: { maxCompileCpuMs: 200 } }));
    assert.deepEqual(names(slow), { status: 'invalid', errors: [CPU_LIMIT_MESSAGE(200)], jobs: [] });
    assert.deepEqual(names(await sandbox.compile('job:\n  script: x\n', context())), { status: 'created', errors: [], jobs: ['job'] });
  });

  test('time spent waiting for file reads is not compute time', async () => {
    const reader = { readFile: async () => new Promise<string>((resolve) => setTimeout(() => resolve('inc:\n  script: x\n'), 600)) };
    const result = await sandbox.compile('include: [a.yml, b.yml]\njob:\n  script: x\n', context({ files: reader, limits: { maxCompileCpuMs: 500 } }));
    assert.deepEqual(names(result), { status: 'created', errors: [], jobs: ['inc', 'job'] });
  });

  test('past the heap ceiling: a configuration error, and the next compile works', async () => {
    const large = await sandbox.compile(SLOW_CI, context({ limits: { maxCompileMemoryMb: 16, maxCompileCpuMs: 120_000 } }));
    assert.deepEqual(names(large), { status: 'invalid', errors: [MEMORY_LIMIT_MESSAGE(16)], jobs: [] });
    assert.deepEqual(names(await sandbox.compile('job:\n  script: x\n', context())), { status: 'created', errors: [], jobs: ['job'] });
  });

  test('catastrophic regular expressions and globs compile well within the deadline', async () => {
    const ci = [
      'regex-rule:\n  script: x\n  rules:\n    - if: $S =~ /^(a+)+$/\n',
      'regex-variable:\n  script: x\n  only:\n    variables: [$S =~ $PATTERN]\n',
      'regex-ref:\n  script: x\n  only: [/^(a|aa)+$/]\n',
      'glob-exists:\n  script: x\n  rules:\n    - exists: ["*a*a*a*a*a*a*a*a*b"]\n',
      'glob-changes:\n  script: x\n  rules:\n    - changes: ["*a*a*a*a*a*a*a*a*b"]\n',
      'plain:\n  script: x\n',
    ].join('');
    const result = await sandbox.compile(
      ci,
      context({
        ref: VALUE,
        variables: [{ key: 'S', value: VALUE }, { key: 'PATTERN', value: '/^(a|a?)+$/' }],
        changedPaths: [LONG_NAME],
        files: { readFile: async () => null, listFiles: async () => [LONG_NAME, 'README.md'] },
      }),
    );
    assert.deepEqual(names(result), { status: 'created', errors: [], jobs: ['plain'] });
  });

  test('compiles one at a time per worker, in order, each answer its own', async () => {
    const results = await Promise.all(['one', 'two', 'three'].map((name) => sandbox.compile(`${name}:\n  script: x\n`, context())));
    assert.deepEqual(results.map((result) => result.jobs.map((job) => job.name)), [['one'], ['two'], ['three']]);
  });

  test('once closed, refuses to compile', async () => {
    const closing = new CompileSandbox({ workers: 1 });
    await closing.compile('job:\n  script: x\n', context());
    await closing.close();
    await assert.rejects(closing.compile('job:\n  script: x\n', context()), /closed/);
  });
});
