import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { BEHIND_MS, CAUGHT_UP_MS, mayLeaveIdle, ThreadPriority, wantedLevel } from '../../src/shared/thread-priority.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { processPolicy, schedulingPolicy } from '../helpers/scheduling.ts';


describe('background thread priority', () => {
  it('goes back to normal when claims run late and to the background once they are on time, with a band between', () => {
    assert.equal(wantedLevel('background', BEHIND_MS + 1), 'normal');
    assert.equal(wantedLevel('normal', BEHIND_MS), 'normal');
    assert.equal(wantedLevel('background', BEHIND_MS), 'background');
    assert.equal(wantedLevel('normal', CAUGHT_UP_MS), 'normal');
    assert.equal(wantedLevel('normal', CAUGHT_UP_MS - 1), 'background');
    assert.equal(wantedLevel('normal', -5_000), 'background', 'a task claimed before it was due');
  });

  it('reads whether a thread may leave SCHED_IDLE again from the capabilities or the nice limit', () => {
    const limits = (nice: string) => `Limit                     Soft Limit           Hard Limit           Units\nMax nice priority         ${nice}                    ${nice}                    \n`;
    assert.equal(mayLeaveIdle('CapEff:\t000001fffeffffff\n', limits('0')), true, 'CAP_SYS_NICE (bit 23)');
    assert.equal(mayLeaveIdle('CapEff:\t00000000a80425fb\n', limits('0')), false, "Docker's default capabilities lack it");
    assert.equal(mayLeaveIdle('CapEff:\t0000000000000000\n', limits('20')), true, 'an RLIMIT_NICE of 20');
    assert.equal(mayLeaveIdle('CapEff:\t0000000000000000\n', limits('unlimited')), true);
    assert.equal(mayLeaveIdle('CapEff:\t0000000000000000\n', limits('19')), false);
  });

  it('moves the calling thread and the processes it started to SCHED_IDLE and back where it may come back, and leaves them alone elsewhere', async () => {
    let started: ChildProcess | undefined;
    const priority = ThreadPriority.ofCallingThread(silentLogger(), () => (started?.pid === undefined ? [] : [started.pid]));
    if (process.platform !== 'linux' || !mayLeaveIdle(readFileSync('/proc/self/status', 'utf8'), readFileSync('/proc/self/limits', 'utf8'))) {
      assert.equal(priority, undefined, 'a thread that could not come back is never sent to the background');
      return;
    }
    assert.ok(priority);
    assert.equal(priority.id, process.pid, "the main thread's id is the process's");
    try {
      await priority.set('background');
      assert.equal(priority.current, 'background');
      assert.equal(schedulingPolicy(priority.id), 5);
      // Started in the background, it inherits the policy; the way back takes it along.
      started = spawn('sleep', ['30']);
      await waitUntil(() => started!.pid !== undefined && processPolicy(started!.pid) === 5, 'the process started in the background');
      priority.observeLag(BEHIND_MS / 2);
      assert.equal(priority.current, 'background', 'within the band, no change');
      priority.observeLag(BEHIND_MS * 2);
      await waitUntil(() => priority.current === 'normal', 'the normal level');
      await waitUntil(() => processPolicy(started!.pid!) === 0, 'the started process back at normal');
      assert.equal(schedulingPolicy(priority.id), 0);
    } finally {
      await priority.set('normal');
      started?.kill();
    }
  });
});

