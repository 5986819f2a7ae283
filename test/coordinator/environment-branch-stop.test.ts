import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDownstreamFixture, waitFor, type DownstreamFixture } from './downstream-fixtures.ts';

/** Deleting a branch stops the environments it deployed (GitLab's `Environments::StopService#execute_for_branch`). */
// ship comes first: its environment is looked at before the review one, whose stop the test waits for.
const CI = `
ship:
  script: ./ship
  environment: production-$CI_COMMIT_REF_NAME
deploy:
  script: ./deploy
  environment: { name: review/$CI_COMMIT_REF_NAME, on_stop: stop }
stop:
  script: ./stop
  when: manual
  environment: { name: review/$CI_COMMIT_REF_NAME, action: stop }
`;

describe('environments of a deleted branch', () => {
  let fixture: DownstreamFixture;
  let project: { id: number; path: string };

  before(async () => {
    fixture = await startDownstreamFixture();
    project = await fixture.project('branch-stop');
  });
  after(() => fixture.close());

  it('are stopped, their on_stop job played; those other branches deployed, and production ones with no stop job, stay', async () => {
    const { stores } = fixture.gantry.coordinator.context;
    const deployed: Record<string, number> = {};
    for (const branch of ['feature', 'other']) {
      const sha = await fixture.commit(project.id, branch, { '.gitlab-ci.yml': CI });
      const pipeline = await fixture.pushPipeline(project.id, sha, branch);
      const jobs = await fixture.jobs(pipeline.id);
      for (const name of ['deploy', 'ship']) await fixture.finish(jobs[name]!, 'success');
      deployed[branch] = pipeline.id;
    }
    const environmentOf = async (branch: string, prefix = 'review/') => {
      const found = await stores.environments.findByName(project.id, `${prefix}${branch}`);
      assert.ok(found, branch);
      return found;
    };
    assert.deepEqual([(await environmentOf('feature')).state, (await environmentOf('other')).state], ['available', 'available']);

    const deleted = await fixture.gantry.api('DELETE', `/projects/${project.id}/repository/branches/feature`);
    assert.equal(deleted.status, 204, deleted.text);
    await waitFor(async () => ((await environmentOf('feature')).state === 'stopped' ? true : undefined), 'the environment of the deleted branch stopped', stores.tasks);
    await fixture.jobWhen(deployed.feature!, 'stop', (job) => job.status === 'pending', 'its on_stop job played');
    assert.equal((await environmentOf('other')).state, 'available');
    assert.equal((await fixture.jobs(deployed.other!)).stop.status, 'manual');
    const production = await environmentOf('feature', 'production-');
    assert.deepEqual([production.tier, production.state], ['production', 'available'], 'a production environment without a stop job stays (GitLab: auto_stop_setting with_action)');
  });
});
