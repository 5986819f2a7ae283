import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/** The resource groups API driven by an unmodified client, @gitbeaker/rest (its `ResourceGroups` resource). */
const CI = [
  'workflow:\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "push"\n      when: never\n    - when: always',
  'deploy:\n  script: [make]\n  resource_group: review/$CI_COMMIT_REF_SLUG',
  '',
].join('\n');

describe('resource groups through @gitbeaker/rest', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  it('lists, shows, edits a group whose key holds a slash, and lists its upcoming jobs', async () => {
    const project = await fixture.ciProject('gitbeaker-groups', CI);
    const pipelineId = await fixture.runPipeline(project.id);
    const api = new Gitlab({ host: fixture.baseUrl, token: fixture.gantry.rootToken });

    const all = await api.ResourceGroups.all(project.id);
    assert.deepEqual(all.map((group) => [group.key, group.process_mode]), [['review/main', 'unordered']]);
    const shown = await api.ResourceGroups.show(project.id, 'review/main');
    assert.equal(shown.id, all[0]!.id);
    const edited = await api.ResourceGroups.edit(project.id, 'review/main', { processMode: 'oldest_first' });
    assert.equal(edited.process_mode, 'oldest_first');
    const upcoming = await api.ResourceGroups.allUpcomingJobs(project.id, 'review/main');
    assert.deepEqual(upcoming.map((job) => [job.name, job.status, job.pipeline.id]), [['deploy', 'waiting_for_resource', pipelineId]]);
  });
});
