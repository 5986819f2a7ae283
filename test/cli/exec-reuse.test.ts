/** `runner exec --reuse`: what changes a job's key, and what a reused job hands on. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { skipDocker } from '../executors/docker-support.ts';
import { exec, workingTree, writeFiles, type JsonResult } from './exec-helpers.ts';

const PIPELINE = `
stages: [build, test]
build:
  stage: build
  script:
    - mkdir -p out
    - echo "$(cat source.txt) $GREETING" > out/app.txt
  artifacts:
    paths: [out/]
check:
  stage: test
  script:
    - cat out/app.txt
    - test -z "$FAIL_CHECK"
`;

type ReuseResult = Omit<JsonResult, 'jobs'> & { jobs: Array<JsonResult['jobs'][number] & { reused?: boolean }> };

async function reused(dir: string, args: Parameters<typeof exec>[1] = {}): Promise<{ names: string[]; code: number; stderr: string }> {
  const result = await exec(dir, { reuse: true, json: true, ...args });
  const outcome = JSON.parse(result.stdout) as ReuseResult;
  return { names: outcome.jobs.filter((job) => job.reused).map((job) => job.name), code: result.code, stderr: result.stderr };
}

describe('runner exec --reuse', () => {
  const dir = workingTree({ '.gitlab-ci.yml': PIPELINE, 'source.txt': 'v1\n' });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reuses unchanged jobs, hands their artifacts on, and runs again what a file or a variable changes', async () => {
    const first = await reused(dir);
    assert.deepEqual([first.code, first.names], [0, []], first.stderr);
    const second = await reused(dir);
    assert.deepEqual(second.names, ['build', 'check'], second.stderr);
    assert.equal(readFileSync(path.join(dir, '.gantry/artifacts/build/out/app.txt'), 'utf8'), 'v1 \n');

    writeFiles(dir, { 'source.txt': 'v2\n' });
    const changed = await reused(dir);
    assert.deepEqual([changed.code, changed.names], [0, []], `a changed file changes the snapshot tree\n${changed.stderr}`);
    const again = await reused(dir);
    assert.deepEqual(again.names, ['build', 'check'], again.stderr);

    const withVariable = await reused(dir, { variable: ['GREETING=hi'] });
    assert.deepEqual(withVariable.names, [], 'a pipeline variable is part of the key');
    assert.match(withVariable.stderr, /^check +\| v2 hi$/m);
  });

  it('forgets a job whose run failed, and the summary says which jobs were reused', async () => {
    const failed = await reused(dir, { variable: ['FAIL_CHECK=1'] });
    assert.equal(failed.code, 1);
    assert.ok(!existsSync(path.join(dir, '.gantry/reuse/check')), 'the failed job has no record');
    assert.ok(existsSync(path.join(dir, '.gantry/reuse/build/entry.json')));

    const text = await exec(dir, { reuse: true, variable: ['FAIL_CHECK=1'] });
    assert.match(text.stdout, /^build +build +reused /m);
    assert.match(text.stdout, /^check +test +failed /m);
  });
});

describe('runner exec --reuse with the docker executor', { skip: skipDocker }, () => {
  const dir = workingTree({ '.gitlab-ci.yml': PIPELINE, 'source.txt': 'v1\n' });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('copies a reused job\'s recorded artifacts back in its container, for the next job and for .gantry/artifacts', async () => {
    // check fails, so it has no record and runs again next time, after the reused build.
    const first = await reused(dir, { executor: 'docker', variable: ['FAIL_CHECK=1'] });
    assert.equal(first.code, 1, first.stderr);
    assert.deepEqual(first.names, []);
    rmSync(path.join(dir, '.gantry/artifacts'), { recursive: true });
    const second = await reused(dir, { executor: 'docker', variable: ['FAIL_CHECK=1'] });
    assert.deepEqual(second.names, ['build'], second.stderr);
    assert.match(second.stderr, /^build +\| reused: artifacts restored$/m);
    assert.match(second.stderr, /^check +\| v1 $/m, 'check downloaded the reused build\'s artifacts');
    assert.equal(readFileSync(path.join(dir, '.gantry/artifacts/build/out/app.txt'), 'utf8'), 'v1 \n');
  });
});
