/** Issue 22: an `expire_in` too large for a date is refused by lint and by the artifact upload (400), never a 500. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runnerRequest, runningJobToken, uploadBody, zipBytes } from '../helpers/runner-artifacts.ts';
import { startJobsFixture, type JobsFixture } from './jobs-fixtures.ts';

describe('artifacts: expire_in bounds', () => {
  let fixture: JobsFixture;

  before(async () => {
    fixture = await startJobsFixture();
  });
  after(() => fixture?.close());

  it('refuses an expire_in too large for a date: lint reports it, an upload answers 400', async () => {
    const linted = await fixture.gantry.api('POST', '/ci/lint', {
      body: { content: 'job:\n  script: x\n  artifacts:\n    paths: [a]\n    expire_in: 99999999999999999 years\n' },
    });
    assert.deepEqual(linted.json, { status: 'invalid', errors: ['jobs:job:artifacts expire in should be a duration'], warnings: [] });

    const base = await fixture.gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const project = await fixture.ciProject('expiry-app');
    const { jobs } = await fixture.pipeline(project, [{ name: 'package', stage: 'build' }]);
    const job = jobs.package!;
    const token = await runningJobToken(fixture.gantry.coordinator, job);
    const zip = await zipBytes({ 'a.txt': 'a' });
    for (const expireIn of ['99999999999999999 years', '1000000 years', `${'9'.repeat(400)}`]) {
      const answer = await runnerRequest(base, 'POST', `/jobs/${job.id}/artifacts?expire_in=${encodeURIComponent(expireIn)}`, { token, body: uploadBody('a.zip', zip) });
      assert.equal(answer.status, 400, `${expireIn}: ${answer.status} ${answer.text}`);
      assert.deepEqual(JSON.parse(answer.text), { error: 'expire_in is invalid' });
    }
    const kept = await runnerRequest(base, 'POST', `/jobs/${job.id}/artifacts?expire_in=${encodeURIComponent('999 years')}`, { token, body: uploadBody('a.zip', zip) });
    assert.equal(kept.status, 201, kept.text);
  });
});
