/** What `runner exec` keeps across runs in `.gantry/`: the cache, and nothing that reaches git. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { exec, git, workingTree } from './exec-helpers.ts';

const COUNTING = `
count:
  cache:
    key: counter
    paths: [counter/]
  script:
    - mkdir -p counter
    - echo run >> counter/runs
    - echo "runs:$(wc -l < counter/runs)"
`;

describe('runner exec keeps its cache across runs', () => {
  const dir = workingTree({ '.gitlab-ci.yml': COUNTING });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the cache of the previous run, and .gantry/ stays out of git', async () => {
    const first = await exec(dir, {});
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^count +\| runs: *1$/m);
    const second = await exec(dir, {});
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /^count +\| runs: *2$/m);
    assert.equal(git(dir, 'status', '--porcelain'), '');
  });
});
