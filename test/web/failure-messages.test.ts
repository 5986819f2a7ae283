import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failureCallout } from '../../src/coordinator/web/failure-messages.ts';
import { FAILURE_REASONS } from '../../src/pipeline/failure-reasons.ts';

describe("the job page's failure callouts (GitLab's CommitStatusPresenter)", () => {
  it('has a text for every failure reason but a script failure, and never shows the reason code itself', () => {
    for (const reason of FAILURE_REASONS) {
      const callout = failureCallout(reason);
      if (reason === 'script_failure') {
        assert.equal(callout, null, 'GitLab shows no callout for a script failure');
        continue;
      }
      assert.ok(callout, reason);
      assert.notEqual(callout.message, reason, reason);
      assert.doesNotMatch(callout.message, /^[a-z_]+$/, reason);
    }
  });

  it("says GitLab's words, with its troubleshooting page where it has one", () => {
    assert.deepEqual(failureCallout('failed_outdated_deployment_job'), {
      message: 'The deployment job is older than the latest deployment, and therefore failed.',
      helpUrl: 'https://docs.gitlab.com/ci/environments/deployment_safety/#prevent-outdated-deployment-jobs',
    });
    assert.deepEqual(failureCallout('stuck_pending_no_matching_runners'), {
      message: 'The job was stuck in pending state with no matching runners available. Check your runner tags or configuration',
      helpUrl: null,
    });
    assert.equal(failureCallout('environment_creation_failure')?.helpUrl, 'https://docs.gitlab.com/ci/environments/#error-job-would-create-an-environment-with-an-invalid-parameter');
    assert.equal(failureCallout('job_router_failure')?.message, 'The Job Router failed to run this job. Please contact your administrator.', 'no job message: the fallback');
    assert.deepEqual(failureCallout('some_future_reason'), { message: 'some_future_reason', helpUrl: null });
  });
});
