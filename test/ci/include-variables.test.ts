/** Variables in `include` locations: what the reader is asked for, protected variables, and secrets kept out of messages. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compilePipeline, type CompileContext, type ContextVariable, type ProjectFileResult } from '../../src/ci/index.ts';
import { pushContext } from './fixture-support.ts';

interface Asked {
  project: string;
  ref: string | undefined;
  path: string;
}

function context(files: Record<string, string>, variables: ContextVariable[], asked: Asked[], overrides: Partial<CompileContext> = {}): CompileContext {
  const reader = {
    readFile: async (path: string) => files[path] ?? null,
    readProjectFile: async (project: string, ref: string | undefined, path: string): Promise<ProjectFileResult> => {
      asked.push({ project, ref, path });
      return { status: 'found', content: 'remote-job: { script: echo remote }\n' };
    },
  };
  return pushContext(reader, { ref: 'release', variables, ...overrides });
}

describe('variables in include locations', () => {
  test('expand in project, ref and file before the project is read; an unknown one is empty', async () => {
    const asked: Asked[] = [];
    const text = 'include:\n  - project: $TEMPLATES\n    ref: ${CI_COMMIT_REF_NAME}-$MISSING\n    file: [ci/%NAME%.yml]\n';
    const result = await compilePipeline(text, context({}, [{ key: 'TEMPLATES', value: 'group/templates' }, { key: 'NAME', value: 'lint' }], asked));
    assert.equal(result.status, 'created', JSON.stringify(result.errors));
    assert.deepEqual(asked, [{ project: 'group/templates', ref: 'release-', path: 'ci/lint.yml' }]);
  });

  test('a protected variable expands only on a protected ref', async () => {
    const files = { 'ci/protected.yml': 'deploy: { script: echo deploy }\n', 'ci/.yml': 'fallback: { script: echo fallback }\n' };
    const variables = [{ key: 'KIND', value: 'protected', protected: true }];
    const text = 'include:\n  - local: ci/$KIND.yml\n';
    const onProtected = await compilePipeline(text, context(files, variables, [], { refProtected: true }));
    assert.deepEqual(onProtected.jobs.map((job) => job.name), ['deploy']);
    const elsewhere = await compilePipeline(text, context(files, variables, []));
    assert.deepEqual(elsewhere.jobs.map((job) => job.name), ['fallback']);
  });

  test('a masked value is written as x characters in every message about the include', async () => {
    const variables = [{ key: 'SECRET', value: 's3cr3t', masked: true }];
    const missing = await compilePipeline('include:\n  - local: ci/$SECRET.yml\njob: { script: echo }\n', context({}, variables, []));
    assert.deepEqual(missing.errors.map((error) => error.message), ['Local file `ci/xxxxxx.yml` does not exist!']);
    const broken = await compilePipeline('include:\n  - local: ci/$SECRET.yml\njob: { script: echo }\n', context({ 'ci/s3cr3t.yml': 'job: [unclosed\n' }, variables, []));
    assert.equal(broken.status, 'invalid');
    const shown = JSON.stringify(broken.errors);
    assert.ok(!shown.includes('s3cr3t'), shown);
    assert.match(shown, /ci\/xxxxxx\.yml/);
  });
});
