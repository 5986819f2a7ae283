/** Contract: our runner (docker executor) against our coordinator, end to end over HTTP. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BUSYBOX, dockerReady, skipDocker } from '../executors/docker-support.ts';
import { startContract, type Contract } from '../helpers/runner-contract.ts';

const ci = (lines: string[]): string => `${lines.join('\n')}\n`;

describe('runner ⇄ coordinator contract (docker)', { skip: skipDocker }, () => {
  let contract: Contract;
  before(async () => {
    await dockerReady();
    contract = await startContract({ executor: 'docker', entry: { docker: { image: BUSYBOX, pullPolicy: ['if-not-present'] } } });
  });
  after(() => contract?.close());

  it('runs a job in its image with a service reachable by its alias, and passes artifacts on', async () => {
    const { projectId, pipelineId } = await contract.project('docker-services', {
      '.gitlab-ci.yml': ci([
        'stages: [build, test]',
        'serve:',
        '  stage: build',
        `  image: ${BUSYBOX}`,
        '  services:',
        `    - name: ${BUSYBOX}`,
        '      alias: web',
        '      command: ["sh", "-c", "mkdir -p /www && echo hello-from-service > /www/index.html && httpd -f -p 8080 -h /www"]',
        '  script:',
        '    - test -f /.dockerenv',
        '    - for i in $(seq 1 50); do wget -q -O answer.txt http://web:8080/ && break; sleep 0.2; done',
        '    - cat answer.txt',
        '  artifacts:',
        '    paths: [answer.txt]',
        'read:',
        '  stage: test',
        `  image: ${BUSYBOX}`,
        '  script:',
        '    - grep hello-from-service answer.txt',
      ]),
    });
    const { status, jobs } = await contract.finished(projectId, pipelineId, 120_000);
    assert.equal(status, 'success', JSON.stringify(jobs.map((job) => [job.name, job.status, job.failure_reason])));
    const trace = await contract.trace(projectId, Number(jobs[0]!.id));
    assert.match(trace, new RegExp(`Using Docker executor with image ${BUSYBOX.replace(/[/.]/g, '\\$&')}`));
    assert.match(trace, /hello-from-service/);
  });

  it('fails a job whose image does not exist with a clear line', async () => {
    const { projectId, pipelineId } = await contract.project('docker-missing', {
      '.gitlab-ci.yml': ci(['missing:', '  image: gantry/does-not-exist:1', '  script:', '    - echo never']),
    });
    const { status, jobs } = await contract.finished(projectId, pipelineId, 60_000);
    assert.equal(status, 'failed');
    // gitlab-runner 13.12 reports a failed pull as a build error without a reason of its own: script_failure.
    assert.equal(jobs[0]!.failure_reason, 'script_failure');
    assert.match(await contract.trace(projectId, Number(jobs[0]!.id)), /failed to pull image "gantry\/does-not-exist:1"/);
  });
});
