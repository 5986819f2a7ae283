import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from '#deps/execa';
import { startContract, type Contract } from '../helpers/runner-contract.ts';

/**
 * CI through python-gitlab (Debian's python3-gitlab) as it is used in the wild, against a
 * listening coordinator whose jobs a registered runner (ours, shell executor) really runs:
 * variables, the push pipeline, traces, artifacts, play, triggers, create with variables,
 * cancel and retry.
 */
describe('GitLab client (python-gitlab) driving CI, with a runner taking the jobs', () => {
  let contract: Contract;
  let seen: Record<string, unknown>;

  before(async () => {
    contract = await startContract({ executor: 'shell' });
    const script = path.join(import.meta.dirname, '../fixtures/python-gitlab/drive_ci.py');
    const run = await execa('/usr/bin/python3', [script, contract.url, contract.test.rootToken], { reject: false, timeout: 300_000 });
    assert.equal(run.exitCode, 0, run.stderr);
    seen = JSON.parse(run.stdout) as Record<string, unknown>;
  });
  after(() => contract.close());

  it('manages variables, and a push runs the pipeline with them (masked ones masked)', () => {
    assert.deepEqual(seen.variables, [['GREETING', false], ['SECRET_TOKEN', true]]);
    assert.deepEqual(seen.push, ['push', 'success']);
    assert.deepEqual(seen.push_jobs, [['build', 'success'], ['ship', 'manual']]);
    assert.equal(seen.trace_masked, true);
    assert.equal(seen.artifact, 'artifact of push\n');
  });

  it('plays a manual job, runs a triggered pipeline with its variables', () => {
    assert.deepEqual(seen.played, ['success', true]);
    assert.deepEqual(seen.triggered, ['trigger', 'success']);
    assert.equal(seen.trigger_variable, true);
  });

  it('cancels a running pipeline and retries it', () => {
    assert.equal(seen.canceled, 'canceled');
    assert.ok(['running', 'pending'].includes(String(seen.retried)));
  });
});
