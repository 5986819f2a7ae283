/** Contract: our runner (shell executor) against our coordinator, end to end over HTTP. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startContract, type Contract } from '../helpers/runner-contract.ts';

const ci = (lines: string[]): string => `${lines.join('\n')}\n`;

describe('runner ⇄ coordinator contract (shell)', () => {
  let contract: Contract;
  before(async () => {
    contract = await startContract({ executor: 'shell', entry: { outputLimit: 4 } });
  });
  after(() => contract.close());

  it('register → job → trace → artifacts → success, and artifacts reach the next stage', async () => {
    const { projectId, pipelineId } = await contract.project('artifacts', {
      '.gitlab-ci.yml': ci([
        'stages: [build, test]',
        'build:',
        '  stage: build',
        '  script:',
        '    - mkdir -p out && echo "built from $CI_COMMIT_SHORT_SHA" > out/result.txt',
        '  artifacts:',
        '    paths: [out/]',
        'check:',
        '  stage: test',
        '  script:',
        '    - cat out/result.txt',
        '    - grep -q built out/result.txt',
      ]),
    });
    const { status, jobs } = await contract.finished(projectId, pipelineId);
    assert.equal(status, 'success', JSON.stringify(jobs));
    const [build, check] = jobs;
    const buildTrace = await contract.trace(projectId, Number(build!.id));
    assert.match(buildTrace, /\$ mkdir -p out && echo "built from \$CI_COMMIT_SHORT_SHA" > out\/result.txt/);
    assert.match(buildTrace, /section_start:\d+:step_script/);
    assert.match(buildTrace, /Uploading artifacts/);
    assert.match(buildTrace, /Job succeeded/);
    const file = await contract.test.api('GET', `/projects/${projectId}/jobs/${String(build!.id)}/artifacts/out/result.txt`);
    assert.equal(file.status, 200);
    assert.match(file.text, /^built from [0-9a-f]{8}\n$/);
    assert.match(await contract.trace(projectId, Number(check!.id)), /Downloading artifacts[\s\S]*built from [0-9a-f]{8}/);
  });

  it('a failing script fails the job with script_failure and exit code; after_script still runs and sees CI_JOB_STATUS', async () => {
    const { projectId, pipelineId } = await contract.project('failing', {
      '.gitlab-ci.yml': ci(['broken:', '  script:', '    - echo before-failure', '    - exit 3', '  after_script:', '    - echo "after_script saw $CI_JOB_STATUS"']),
    });
    const { status, jobs } = await contract.finished(projectId, pipelineId);
    assert.equal(status, 'failed');
    assert.equal(jobs[0]!.failure_reason, 'script_failure');
    const trace = await contract.trace(projectId, Number(jobs[0]!.id));
    assert.match(trace, /after_script saw failed/);
    assert.match(trace, /ERROR: Job failed: exit status 3/);
  });

  it('masks masked variables in the trace', async () => {
    const secret = 'contract-s3cret-value-42';
    const { projectId, pipelineId } = await contract.project('masked', { '.gitlab-ci.yml': ci(['leak:', '  script:', '    - echo "the secret is $SECRET_VALUE"']) }, [
      { key: 'SECRET_VALUE', value: secret, masked: true },
    ]);
    const { status, jobs } = await contract.finished(projectId, pipelineId);
    assert.equal(status, 'success');
    const trace = await contract.trace(projectId, Number(jobs[0]!.id));
    assert.match(trace, /the secret is \[MASKED\]/);
    assert.ok(!trace.includes(secret));
  });

  it('stops collecting output past output_limit with GitLab\'s message, and the job still succeeds', async () => {
    const { projectId, pipelineId } = await contract.project('chatty', { '.gitlab-ci.yml': ci(['chatty:', '  script:', '    - for i in $(seq 1 2000); do echo "line $i of a long log"; done']) });
    const { status, jobs } = await contract.finished(projectId, pipelineId);
    assert.equal(status, 'success');
    const trace = await contract.trace(projectId, Number(jobs[0]!.id));
    assert.match(trace, /Job's log exceeded limit of 4096 bytes\./);
    assert.ok(!trace.includes('line 2000 of a long log'));
  });

  it('a job canceled on the coordinator stops running on the runner', async () => {
    const { projectId, pipelineId } = await contract.project('cancel', { '.gitlab-ci.yml': ci(['slow:', '  script:', '    - echo started', '    - sleep 60', '    - echo never']) });
    let jobId = 0;
    for (let attempt = 0; attempt < 400 && jobId === 0; attempt++) {
      const jobs = await contract.test.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs`);
      const job = jobs.list[0];
      if (job?.status === 'running' && (await contract.trace(projectId, Number(job.id))).includes('started')) jobId = Number(job.id);
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(jobId > 0, 'the job ran');
    assert.equal((await contract.test.api('POST', `/projects/${projectId}/jobs/${jobId}/cancel`)).status, 201);
    const { status } = await contract.finished(projectId, pipelineId, 20_000);
    assert.equal(status, 'canceled');
    // The runner learns of the cancel from its next trace update and kills the script.
    // Bounded by half the script's sleep, not by a count of polls: the machine's load sets how long each takes.
    await waitUntil(() => contract.runner.daemon.status().runners[0]!.running === 0, 'the runner to stop the job', { timeoutMs: 30_000, intervalMs: 100 });
    assert.ok(!(await contract.trace(projectId, jobId)).includes('never'));
  });

  it('fails a job past its timeout with job_execution_timeout', async () => {
    const { projectId, pipelineId } = await contract.project('timeout', { '.gitlab-ci.yml': ci(['sleepy:', '  timeout: 3 seconds', '  script:', '    - sleep 30']) });
    const { status, jobs } = await contract.finished(projectId, pipelineId, 30_000);
    assert.equal(status, 'failed');
    assert.equal(jobs[0]!.failure_reason, 'job_execution_timeout');
  });

  it('keeps the cache between two pipelines', async () => {
    const file = ci([
      'cached:',
      '  cache:',
      '    key: contract',
      '    paths: [vendor/]',
      '  script:',
      '    - if test -f vendor/marker; then echo CACHE-HIT; else mkdir -p vendor && echo 1 > vendor/marker && echo CACHE-MISS; fi',
    ]);
    const { projectId, pipelineId } = await contract.project('cache', { '.gitlab-ci.yml': file });
    const first = await contract.finished(projectId, pipelineId);
    assert.equal(first.status, 'success');
    assert.match(await contract.trace(projectId, Number(first.jobs[0]!.id)), /CACHE-MISS/);
    const second = await contract.test.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main' } });
    assert.equal(second.status, 201);
    const again = await contract.finished(projectId, Number(second.json.id));
    assert.equal(again.status, 'success');
    assert.match(await contract.trace(projectId, Number(again.jobs[0]!.id)), /CACHE-HIT/);
  });
  it('runs a child pipeline whose CI file an earlier job generated (include:artifact)', async () => {
    const { projectId, pipelineId } = await contract.project('generated-child', {
      '.gitlab-ci.yml': ci([
        'stages: [generate, trigger]',
        'generate:',
        '  stage: generate',
        '  script:',
        "    - printf 'child-job:\\n  script:\\n    - echo child-from-artifact\\n' > child.yml",
        '  artifacts:',
        '    paths: [child.yml]',
        'run-child:',
        '  stage: trigger',
        '  trigger:',
        '    include:',
        '      - artifact: child.yml',
        '        job: generate',
        '    strategy: depend',
        'broken-child:',
        '  stage: trigger',
        '  allow_failure: true',
        '  trigger:',
        '    include:',
        '      - artifact: missing.yml',
        '        job: generate',
      ]),
    });
    const { status } = await contract.finished(projectId, pipelineId);
    assert.equal(status, 'success');
    const bridges = (await contract.test.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/bridges`)).list;
    const byName = new Map(bridges.map((bridge) => [String(bridge.name), bridge]));
    assert.equal(byName.get('run-child')?.status, 'success');
    assert.equal(byName.get('broken-child')?.status, 'failed');
    const child = byName.get('run-child')?.downstream_pipeline as { id: number } | null;
    assert.ok(child, 'the bridge shows its child pipeline');
    const childRun = await contract.finished(projectId, child.id);
    assert.equal(childRun.status, 'success');
    assert.deepEqual(childRun.jobs.map((job) => job.name), ['child-job']);
    assert.match(await contract.trace(projectId, Number(childRun.jobs[0]!.id)), /child-from-artifact/);
    const brokenChild = byName.get('broken-child')?.downstream_pipeline as { id: number } | null;
    assert.ok(brokenChild);
    const broken = (await contract.test.api('GET', `/projects/${projectId}/pipelines/${brokenChild.id}`)).json;
    assert.match(String(broken.yaml_errors), /Path `missing.yml` does not exist inside the `generate` artifacts archive!/);
  });
});
