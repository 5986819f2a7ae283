/** `runner exec --executor docker`: a job in its image sees the working tree's uncommitted file. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { skipDocker } from '../executors/docker-support.ts';
import { exec, workingTree, writeFiles } from './exec-helpers.ts';

describe('runner exec with the docker executor', { skip: skipDocker }, () => {
  const dir = workingTree({
    '.gitlab-ci.yml': 'inside:\n  image: gantry/busybox:latest\n  script:\n    - test -f /.dockerenv && echo "container sees $(cat data.txt)"\n',
    'data.txt': 'committed\n',
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the job in its image on the local engine', async () => {
    writeFiles(dir, { 'data.txt': 'uncommitted\n' });
    const result = await exec(dir, { executor: 'docker' });
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /^inside +\| container sees uncommitted$/m);
  });
});
