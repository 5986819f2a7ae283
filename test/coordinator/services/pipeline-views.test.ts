import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PipelineViews } from '../../../src/coordinator/services/ci/pipelines/pipeline-views.ts';
import type { JobRecord } from '../../../src/storage/types-ci-jobs.ts';
import type { PipelineRecord } from '../../../src/storage/types-ci.ts';
import type { ProjectRecord } from '../../../src/storage/types.ts';
import { ANN, gitFixture, type GitFixture } from '../../storage/git/fixture.ts';

/** The commit a job's answer embeds: none for a sha the repository does not know, an error when git fails. */
describe('pipeline views: the jobs\' commits', () => {
  let fixture: GitFixture;
  let views: PipelineViews;
  let headSha: string;

  before(async () => {
    fixture = await gitFixture();
    for (const id of [1, 2]) await fixture.manager.create(id, { initializeWithReadme: true, defaultBranch: 'main', projectName: `p${id}`, author: ANN });
    headSha = (await fixture.manager.open(1).branch('main'))!.commit.id;
    views = new PipelineViews({
      users: { findByIds: async () => [] },
      namespaces: { findById: async () => undefined, findByIds: async () => [] },
      projects: { findByIds: async () => [] },
      pipelines: { listBySourceJobs: async () => [] },
      runners: { findByIds: async () => [] },
      artifacts: { listForJobs: async () => [] },
      repositories: fixture.manager,
    });
  });
  after(() => fixture.cleanup());

  const project = (id: number) => ({ id, namespace_id: 1, path: `p${id}` }) as ProjectRecord;
  const job = (id: number, sha: string) => ({ id, sha, user_id: null, runner_id: null }) as JobRecord;
  const pipeline = { id: 1 } as PipelineRecord;

  it('shows a known sha as its commit and an unknown one as no commit', async () => {
    const shown = await views.jobs({ project: project(1), fullPath: 'p1' }, pipeline, [job(1, headSha), job(2, 'f'.repeat(40))]);
    assert.deepEqual(shown.map((view) => view.commit?.id ?? null), [headSha, null]);
  });

  it('lets a git failure through instead of showing "no commit"', async () => {
    // A repository git refuses to read: its object directory is a file.
    const objects = path.join(fixture.root, 'repositories', '2.git', 'objects');
    rmSync(objects, { recursive: true });
    writeFileSync(objects, '');
    await assert.rejects(views.jobs({ project: project(2), fullPath: 'p2' }, pipeline, [job(1, headSha)]));
  });
});
