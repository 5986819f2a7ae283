/** `runner exec` shows each job's coverage (its `coverage:` regex on its log) in the summary and in --json. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { exec, workingTree } from './exec-helpers.ts';

const PIPELINE = String.raw`
covered:
  script: 'echo "Coverage: 81.25%"'
  coverage: '/Coverage: \d+\.\d+%/'
plain:
  script: 'echo "Coverage: 10.00%"'
`;

describe('runner exec coverage', () => {
  const dir = workingTree({ '.gitlab-ci.yml': PIPELINE });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('adds a COVERAGE column to the summary and `coverage` to each job of --json', async () => {
    const text = await exec(dir, {});
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^JOB +STAGE +STATUS +DURATION +COVERAGE +FAILURE$/m);
    assert.match(text.stdout, /^covered +test +success +\S+ s +81\.25%$/m);
    assert.match(text.stdout, /^plain +test +success +\S+ s +-$/m);

    const json = await exec(dir, { json: true });
    assert.equal(json.code, 0, json.stderr);
    const result = JSON.parse(json.stdout) as { jobs: Array<{ name: string; coverage: number | null }> };
    assert.deepEqual(Object.fromEntries(result.jobs.map((job) => [job.name, job.coverage])), { covered: 81.25, plain: null });
  });
});
