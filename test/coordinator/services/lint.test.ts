import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePipeline } from '../../../src/ci/compile.ts';
import { CiLint } from '../../../src/coordinator/services/ci/pipelines/lint.ts';
import type { PipelineCreation } from '../../../src/coordinator/services/ci/pipelines/creation.ts';
import { GantryError } from '../../../src/shared/errors.ts';
import type { ProjectRecord, UserRecord } from '../../../src/storage/types.ts';

/**
 * Linting given content against a project's ref: a ref that does not exist lints the content
 * without a repository; any other failure while resolving the ref (the database, git) is an
 * error, never a lint against an empty repository.
 */
describe('CI lint of a project: failures while resolving the ref', () => {
  const project = { id: 7, path: 'app', default_branch: 'main', ci_config_path: '' } as ProjectRecord;
  const actor = { id: 1, is_admin: true } as UserRecord;
  const lintWith = (resolve: PipelineCreation['resolve']) =>
    new CiLint({
      creation: { resolve, compile: compilePipeline, prepare: () => Promise.reject(new Error('not a dry run')), fullPath: async (project) => `group/${project.path}` },
      lookup: { readableProject: async () => project },
      permissions: { canLintProjectConfig: async () => true, canCreatePipeline: async () => true },
    });
  const input = { content: 'build:\n  script: [make]\n', dryRun: false, includeJobs: false };

  it('lints the content without a repository when the ref does not exist', async () => {
    const lint = lintWith(() => Promise.reject(new GantryError('GANTRY_E_REF_NOT_FOUND', 'Reference not found')));
    const outcome = await lint.lintProject('7', actor, { ...input, ref: 'gone' });
    assert.deepEqual([outcome.valid, outcome.errors], [true, []]);
  });

  it('answers the error of a failing database, not a lint', async () => {
    const failure = new Error('Connection terminated unexpectedly');
    const lint = lintWith(() => Promise.reject(failure));
    await assert.rejects(lint.lintProject('7', actor, input), (error) => error === failure);
  });
});
