/** A newer `runner exec` of the same ref supersedes an older one still running, by GitLab's rule for redundant pipelines. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { exec, workingTree, writeFiles } from './exec-helpers.ts';

/** The job marks that it started, then waits while `slow.txt` is in its snapshot. */
const ciFile = (interruptible: boolean, wait: number) => `slow:
  interruptible: ${interruptible}
  script:
    - touch "$MARK"
    - if [ -f slow.txt ]; then sleep ${wait}; fi
`;

async function olderAndNewer(interruptible: boolean, wait: number) {
  const marks = mkdtempSync(path.join(tmpdir(), 'gantry-exec-marks-'));
  const dir = workingTree({ '.gitlab-ci.yml': ciFile(interruptible, wait) });
  writeFiles(dir, { 'slow.txt': 'the older run waits\n' });
  const older = exec(dir, { json: true, variable: [`MARK=${path.join(marks, 'older')}`] });
  await waitUntil(() => existsSync(path.join(marks, 'older')), "the older run's job to start", { timeoutMs: 60_000 });
  rmSync(path.join(dir, 'slow.txt'));
  const newer = await exec(dir, { json: true, variable: [`MARK=${path.join(marks, 'newer')}`] });
  return { dir, newer, older: await older };
}

describe('runner exec: a newer run of the same ref supersedes an older one', () => {
  it('cancels the older run when every job of it that started is interruptible', async () => {
    const { dir, newer, older } = await olderAndNewer(true, 60);
    assert.equal(newer.code, 0, newer.stderr);
    assert.match(newer.stderr, /this run supersedes the run of main in process \d+/);
    assert.equal(older.code, 1);
    const result = JSON.parse(older.stdout) as { status: string; jobs: Array<{ status: string }> };
    assert.equal(result.status, 'canceled');
    assert.equal(result.jobs[0]?.status, 'canceled');
    assert.match(older.stderr, /superseded by a newer run of main \(process \d+\): the pipeline is canceled/);
    assert.deepEqual(readdirSync(path.join(dir, '.gantry', 'runs')), [], 'both runs removed their records');
  });

  it('lets the older run finish when a job that is not interruptible has started', async () => {
    const { newer, older } = await olderAndNewer(false, 3);
    assert.equal(newer.code, 0, newer.stderr);
    assert.equal(older.code, 0, older.stderr);
    assert.equal((JSON.parse(older.stdout) as { status: string }).status, 'success');
    assert.match(older.stderr, /a newer run of main started \(process \d+\); this one goes on: a job that is not interruptible has started/);
  });

  it('does not supersede a run of the same files', async () => {
    const marks = mkdtempSync(path.join(tmpdir(), 'gantry-exec-marks-'));
    const dir = workingTree({ '.gitlab-ci.yml': ciFile(true, 3), 'slow.txt': 'committed: both runs wait\n' });
    const older = exec(dir, { json: true, committed: true, variable: [`MARK=${path.join(marks, 'older')}`] });
    await waitUntil(() => existsSync(path.join(marks, 'older')), "the older run's job to start", { timeoutMs: 60_000 });
    const newer = await exec(dir, { json: true, committed: true, variable: [`MARK=${path.join(marks, 'newer')}`] });
    assert.doesNotMatch(newer.stderr, /supersedes/);
    assert.equal((await older).code, 0);
  });
});
