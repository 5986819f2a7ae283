/** Job state machine (§3.2), capabilities for the API, failure reasons and auto-retry (§3.3, §6). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RETRY_WHEN_VALUES } from '../../src/ci/entries/environment-retry.ts';
import {
  FAILURE_REASONS,
  JOB_STATUSES,
  allowedAutoRetries,
  applyChanges,
  canTransition,
  decideForCreatedJob,
  isJobCancelable,
  isJobPlayable,
  isJobRetryable,
  isPipelineCancelable,
  isPipelineRetryable,
  isUnrecoverableFailure,
  normalizeFailureReason,
  shouldAutoRetry,
  timestampFieldFor,
  type JobStatus,
  type JobWhen,
  type PipelineJob,
} from '../../src/pipeline/index.ts';

const LEGAL: Record<JobStatus, JobStatus[]> = {
  created: ['waiting_for_resource', 'pending', 'manual', 'scheduled', 'success', 'failed', 'skipped', 'canceled'],
  waiting_for_resource: ['pending', 'success', 'failed', 'skipped', 'canceled'],
  pending: ['running', 'success', 'failed', 'skipped', 'canceled'],
  running: ['success', 'failed', 'canceled', 'canceling'],
  canceling: ['canceled'],
  success: [],
  failed: [],
  canceled: [],
  skipped: ['created', 'waiting_for_resource', 'pending'],
  manual: ['created', 'waiting_for_resource', 'pending', 'canceled'],
  scheduled: ['waiting_for_resource', 'pending', 'manual', 'failed', 'canceled'],
};

function job(status: JobStatus, when: JobWhen = 'on_success', extra: Partial<PipelineJob> = {}): PipelineJob {
  return {
    id: 1,
    name: 'j',
    stage: 'test',
    stageIdx: 0,
    status,
    when,
    allowFailure: false,
    needs: null,
    retry: null,
    retried: false,
    ...extra,
  };
}

describe('job transitions', () => {
  for (const from of JOB_STATUSES) {
    it(`from ${from}: ${LEGAL[from].join(', ') || 'nothing (final)'}`, () => {
      for (const to of JOB_STATUSES) {
        assert.equal(canTransition(from, to), LEGAL[from].includes(to), `${from} -> ${to}`);
      }
    });
  }

  it('names the timestamp each status sets', () => {
    assert.equal(timestampFieldFor('pending'), 'queuedAt');
    assert.equal(timestampFieldFor('running'), 'startedAt');
    for (const status of ['success', 'failed', 'canceled'] as const) assert.equal(timestampFieldFor(status), 'finishedAt');
    assert.equal(timestampFieldFor('skipped'), null);
  });
});

describe('processing decisions (§4.1 table)', () => {
  const priors: JobStatus[] = ['success', 'failed', 'skipped', 'canceled'];
  const table: [JobWhen, boolean, JobStatus[]][] = [
    ['on_success', false, ['success', 'skipped']],
    ['manual', false, ['success', 'skipped']],
    ['delayed', false, ['success', 'skipped']],
    ['on_failure', false, ['failed']],
    ['always', false, ['success', 'failed', 'skipped']],
    ['on_success', true, ['success']],
    ['manual', true, ['success']],
    ['delayed', true, ['success']],
    ['on_failure', true, ['failed']],
    ['always', true, ['success', 'failed', 'skipped']],
  ];
  for (const [when, dag, allowed] of table) {
    it(`${dag ? 'DAG' : 'stage'} job when ${when} runs after ${allowed.join(', ')}`, () => {
      const runs = { on_success: 'enqueue', on_failure: 'enqueue', always: 'enqueue', manual: 'actionize', delayed: 'schedule' }[when];
      for (const prior of priors) {
        const expected = allowed.includes(prior) ? runs : 'skip';
        assert.equal(decideForCreatedJob({ when, needs: dag ? [] : null }, prior), expected, `prior ${prior}`);
      }
      for (const prior of ['created', 'pending', 'running', 'canceling', 'manual', 'scheduled'] as const) {
        assert.equal(decideForCreatedJob({ when, needs: dag ? [] : null }, prior), 'wait', `prior ${prior}`);
      }
    });
  }
});

describe('capabilities', () => {
  it('cancelable: created, pending, running, scheduled', () => {
    const cancelable = JOB_STATUSES.filter((status) => isJobCancelable(job(status)));
    assert.deepEqual(cancelable, ['created', 'waiting_for_resource', 'pending', 'running', 'scheduled']);
  });

  it('retryable: a latest build that succeeded, failed, was canceled or is canceling', () => {
    const retryable = JOB_STATUSES.filter((status) => isJobRetryable(job(status)));
    assert.deepEqual(retryable, ['canceling', 'success', 'failed', 'canceled']);
    assert.equal(isJobRetryable(job('failed', 'on_success', { retried: true })), false);
    assert.equal(isJobRetryable(job('failed', 'on_success', { external: true })), false);
  });

  it('playable: a manual or delayed job that is manual, scheduled or retryable', () => {
    assert.deepEqual(
      JOB_STATUSES.filter((status) => isJobPlayable(job(status, 'manual'))),
      ['canceling', 'success', 'failed', 'canceled', 'manual', 'scheduled'],
    );
    assert.equal(isJobPlayable(job('scheduled', 'delayed')), true);
    assert.equal(isJobPlayable(job('failed', 'on_success')), false);
    assert.equal(isJobPlayable(job('created', 'manual')), false);
  });

  it('pipeline cancelable and retryable', () => {
    assert.equal(isPipelineCancelable([job('success'), job('manual', 'manual')]), false);
    assert.equal(isPipelineCancelable([job('success'), job('scheduled', 'delayed')]), true);
    assert.equal(isPipelineRetryable([job('success'), job('skipped')]), false);
    assert.equal(isPipelineRetryable([job('success'), job('canceled')]), true);
    assert.equal(isPipelineRetryable([job('failed', 'on_success', { retried: true })]), false);
  });
});

describe('failure reasons and automatic retry', () => {
  it('normalizes wire values', () => {
    assert.equal(normalizeFailureReason('script_failure'), 'script_failure');
    assert.equal(normalizeFailureReason('job_canceled'), 'unknown_failure');
    assert.equal(normalizeFailureReason(undefined), 'unknown_failure');
    assert.equal(normalizeFailureReason(null), 'unknown_failure');
    // GitLab 19.1's runner reasons are recorded as sent, not as unknown_failure.
    for (const reason of ['runner_configuration_error', 'runner_external_dependency_failure', 'runner_interrupted']) {
      assert.equal(normalizeFailureReason(reason), reason);
    }
  });

  it('records every reason retry:when accepts (GitLab\'s CommitStatus failure reasons)', () => {
    const unknown = RETRY_WHEN_VALUES.filter((value) => value !== 'always' && normalizeFailureReason(value) !== value);
    assert.deepEqual(unknown, []);
    assert.equal(new Set(FAILURE_REASONS).size, RETRY_WHEN_VALUES.length - 1);
  });

  it('knows the unrecoverable reasons', () => {
    assert.equal(isUnrecoverableFailure('script_failure'), true);
    assert.equal(isUnrecoverableFailure('runner_system_failure'), false);
  });

  it('allowed retries: never-retry reasons, then retry:when, then scheduler_failure', () => {
    const always2 = { retry: { max: 2, when: ['always' as const] } };
    const onTimeout = { retry: { max: 1, when: ['job_execution_timeout' as const] } };
    assert.equal(allowedAutoRetries(always2, 'script_failure'), 2);
    for (const reason of ['ci_quota_exceeded', 'no_matching_runner', 'missing_dependency_failure', 'forward_deployment_failure', 'environment_creation_failure'] as const) {
      assert.equal(allowedAutoRetries(always2, reason), 0, reason);
    }
    assert.equal(allowedAutoRetries(onTimeout, 'job_execution_timeout'), 1);
    assert.equal(allowedAutoRetries(onTimeout, 'script_failure'), 0);
    assert.equal(allowedAutoRetries(onTimeout, 'scheduler_failure'), 2);
    assert.equal(allowedAutoRetries({ retry: null }, 'scheduler_failure'), 2);
    assert.equal(allowedAutoRetries({ retry: null }, 'script_failure'), 0);
    assert.equal(shouldAutoRetry(always2, 'script_failure', 1), true);
    assert.equal(shouldAutoRetry(always2, 'script_failure', 2), false);
    assert.equal(shouldAutoRetry({ ...always2, external: true }, 'script_failure', 0), false);
  });

  it('retry:when names the finer reasons a legacy reason was split into, and only those', () => {
    const onStuck = { retry: { max: 2, when: ['stuck_or_timeout_failure' as const] } };
    for (const reason of ['stuck_or_timeout_failure', 'stuck_pending_with_matching_runners', 'stuck_pending_no_matching_runners', 'no_updates_running', 'no_updates_canceling'] as const) {
      assert.equal(allowedAutoRetries(onStuck, reason), 2, reason);
    }
    for (const reason of ['server_timeout_running', 'job_execution_timeout', 'runner_system_failure'] as const) {
      assert.equal(allowedAutoRetries(onStuck, reason), 0, reason);
    }
    const onTimeout = { retry: { max: 1, when: ['job_execution_timeout' as const] } };
    assert.equal(allowedAutoRetries(onTimeout, 'server_timeout_running'), 1);
    assert.equal(allowedAutoRetries(onTimeout, 'server_timeout_canceling'), 1);
    assert.equal(allowedAutoRetries(onTimeout, 'job_execution_server_timeout'), 0);
    assert.equal(allowedAutoRetries(onTimeout, 'no_updates_running'), 0);
    // The alias goes one way: a finer reason in retry:when does not name the legacy one.
    assert.equal(allowedAutoRetries({ retry: { max: 2, when: ['no_updates_running' as const] } }, 'stuck_or_timeout_failure'), 0);
  });
});

describe('applyChanges', () => {
  it('patches updates and appends creations without touching the input', () => {
    const before = [job('failed'), { ...job('created'), id: 2 }];
    const clone = { ...before[0], id: 3, status: 'pending' as const };
    const after = applyChanges(before, [
      { kind: 'create', cloneOf: 1, job: clone },
      { kind: 'update', jobId: 1, previousStatus: 'failed', patch: { retried: true } },
      { kind: 'update', jobId: 2, previousStatus: 'created', patch: { status: 'pending' } },
    ]);
    assert.deepEqual(after.map((j) => [j.id, j.status, j.retried]), [
      [1, 'failed', true],
      [2, 'pending', false],
      [3, 'pending', false],
    ]);
    assert.equal(before[0].retried, false);
  });
});
