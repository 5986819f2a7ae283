import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closingSteps } from '../../src/coordinator/closing-steps.ts';
import { recordingLogger } from '../helpers/recording-logger.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('closing steps', () => {
  it('names a step that is slow while it waits, and its time once done', async () => {
    const { logger, lines } = recordingLogger();
    const step = closingSteps(logger, 50);
    const answer = await step('the task worker', async () => {
      await pause(150);
      return 'stopped';
    });
    assert.equal(answer, 'stopped');
    assert.equal(lines.length, 2);
    assert.equal(lines[0]?.msg, 'closing: still waiting for the task worker after 50 ms');
    assert.match(String(lines[1]?.msg), /^closing: the task worker took \d+ ms$/);
    // A 150 ms timer can end 149 ms after on the wall clock (its clock is the monotonic one, its
    // millisecond boundaries elsewhere): the step's own time, not the quick one's few ms.
    assert.ok(Number(lines[1]?.tookMs) >= 140, String(lines[1]?.tookMs));
  });

  it('says nothing of a quick step, and passes its failure on', async () => {
    const { logger, lines } = recordingLogger();
    const step = closingSteps(logger, 100);
    await step('the database', () => pause(5));
    await assert.rejects(step('repositories', () => Promise.reject(new Error('busy'))), /busy/);
    await pause(150);
    assert.deepEqual(lines, []);
  });
});
