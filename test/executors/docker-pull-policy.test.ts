import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Docker from 'dockerode';
import { DockerExecutor } from '../../src/executors/docker/docker-executor.ts';
import { LABEL_JOB, LABEL_MANAGED } from '../../src/executors/docker/labels.ts';
import type { DockerSettings } from '../../src/executors/docker/settings.ts';
import { ExecutorError, type PrepareRequest } from '../../src/executors/types.ts';
import type { Service } from '../../src/protocol/job-payload.ts';
import { prepareRequest } from './conformance.ts';
import { BUSYBOX, dockerReady, skipDocker } from './docker-support.ts';

/**
 * A local image no registry can serve (its registry, localhost:1, refuses connections): an
 * `always` pull of it fails, online or not, and the image stays the engine's own.
 */
const LOCAL_ONLY = 'localhost:1/gantry/pull-policy:test';
const MISSING = 'localhost:1/gantry/no-such-image:1';

async function leftovers(docker: Docker, jobId: number): Promise<unknown[]> {
  const filters = JSON.stringify({ label: [`${LABEL_MANAGED}=true`, `${LABEL_JOB}=${jobId}`] });
  return [...(await docker.listContainers({ all: true, filters })), ...(await docker.listNetworks({ filters })), ...((await docker.listVolumes({ filters })).Volumes ?? [])];
}

const service = (name: string, pullPolicy?: string[]): Service => ({ name, alias: null, entrypoint: null, ports: [], command: null, ...(pullPolicy ? { pull_policy: pullPolicy } : {}) });

describe('docker executor: pull policies of the job and of the runner', { skip: skipDocker }, () => {
  let docker: Docker;
  before(async () => {
    docker = await dockerReady();
    await docker.getImage(BUSYBOX).tag({ repo: 'localhost:1/gantry/pull-policy', tag: 'test' });
  });
  after(async () => {
    await docker?.getImage(LOCAL_ONLY).remove().catch(() => undefined);
  });

  /** Prepares (and cleans up) a job of `image` with `overrides`; answers its log lines, or the error it failed with. */
  async function prepared(settings: DockerSettings, image: PrepareRequest['image'], overrides: Partial<PrepareRequest> = {}): Promise<{ lines: string[]; error: unknown }> {
    const executor = new DockerExecutor(settings, docker);
    const lines: string[] = [];
    const request = prepareRequest({ executor, shell: 'sh', realShell: true, image: '' }, { image, log: (line, level) => lines.push(level === 'warning' ? `WARNING: ${line}` : line), ...overrides });
    let error: unknown = null;
    try {
      await (await executor.prepare(request)).cleanup();
    } catch (failure) {
      error = failure;
    }
    assert.deepEqual(await leftovers(docker, request.jobId), []);
    return { lines, error };
  }

  it("takes the job's policy over the runner's: never and if-not-present use the local image, an always pull that fails fails the job", async () => {
    const allowAll: DockerSettings = { pullPolicy: ['always'], allowedPullPolicies: ['always', 'if-not-present', 'never'] };
    for (const policy of ['never', 'if-not-present']) {
      const { lines, error } = await prepared(allowAll, { name: LOCAL_ONLY, pull_policy: [policy] });
      assert.equal(error, null);
      assert.ok(lines.includes(`Using locally found image version due to "${policy}" pull policy`), lines.join('\n'));
      assert.ok(!lines.some((line) => line.startsWith('Pulling docker image')), lines.join('\n'));
    }
    const { lines, error } = await prepared({ pullPolicy: ['if-not-present'], allowedPullPolicies: ['always', 'if-not-present'] }, { name: LOCAL_ONLY, pull_policy: ['always'] });
    assert.ok(error instanceof ExecutorError && error.kind === 'image', String(error));
    assert.match(error.message, /^failed to pull image "localhost:1\/gantry\/pull-policy:test" with specified policies \[always\]: /);
    assert.ok(lines.includes(`Pulling docker image ${LOCAL_ONLY} ...`), lines.join('\n'));
    assert.ok(lines.some((line) => line.startsWith('WARNING: Failed to pull image with policy "always": ')), lines.join('\n'));
  });

  it('tries a list in order: a failed always pull, then the local image', async () => {
    const { lines, error } = await prepared({ allowedPullPolicies: ['always', 'if-not-present'] }, { name: LOCAL_ONLY, pull_policy: ['always', 'if-not-present'] });
    assert.equal(error, null);
    const attempt = lines.indexOf('Attempt #2: Trying "if-not-present" pull policy');
    assert.ok(attempt > 0 && lines[attempt - 1]?.startsWith('WARNING: Failed to pull image with policy "always": '), lines.join('\n'));
    assert.equal(lines[attempt + 1], 'Using locally found image version due to "if-not-present" pull policy');
  });

  it("refuses a job's policy outside allowed_pull_policies (by default the runner's pull_policy) in gitlab-runner's words, before anything is made", async () => {
    const cases: [DockerSettings, string[] | undefined, string][] = [
      [{ pullPolicy: ['if-not-present'] }, ['always'], 'pull_policy ([always]) defined in GitLab pipeline config is not one of the allowed_pull_policies ([if-not-present])'],
      [{ pullPolicy: ['never'], allowedPullPolicies: ['always'] }, undefined, 'pull_policy ([never]) defined in Runner config is not one of the allowed_pull_policies ([always])'],
      [{ allowedPullPolicies: ['never', 'if-not-present'] }, undefined, 'pull_policy ([always]) defined in Runner config (default) is not one of the allowed_pull_policies ([never if-not-present])'],
    ];
    for (const [settings, jobPolicies, reason] of cases) {
      const { lines, error } = await prepared(settings, { name: LOCAL_ONLY, ...(jobPolicies ? { pull_policy: jobPolicies } : {}) });
      assert.ok(error instanceof ExecutorError && error.kind === 'config', String(error));
      assert.equal(error.message, `invalid pull policy for image "${LOCAL_ONLY}": ${reason}`);
      assert.ok(!lines.some((line) => line.includes('Pulling')), lines.join('\n'));
    }
    // A list keeps its allowed policies, in its order.
    const { lines, error } = await prepared({ pullPolicy: ['if-not-present'] }, { name: LOCAL_ONLY, pull_policy: ['always', 'if-not-present'] });
    assert.equal(error, null);
    assert.ok(!lines.some((line) => line.includes('Pulling') || line.startsWith('Attempt')), lines.join('\n'));
  });

  it("follows each service's own policy: never fails clearly for a missing one, and a refused one names the service", async () => {
    const settings: DockerSettings = { pullPolicy: ['if-not-present'], allowedPullPolicies: ['if-not-present', 'never'], waitForServicesTimeout: 0 };
    const missing = await prepared(settings, { name: BUSYBOX }, { services: [service(MISSING, ['never'])] });
    assert.ok(missing.error instanceof ExecutorError && missing.error.kind === 'image', String(missing.error));
    assert.equal(missing.error.message, `failed to pull image "${MISSING}" with specified policies [never]: the image is not present on this host and the pull policy is "never"`);
    const refused = await prepared(settings, { name: BUSYBOX }, { services: [service(LOCAL_ONLY), service(BUSYBOX, ['always'])] });
    assert.ok(refused.error instanceof ExecutorError, String(refused.error));
    assert.equal(refused.error.message, `invalid pull policy for image "${BUSYBOX}": pull_policy ([always]) defined in GitLab pipeline config is not one of the allowed_pull_policies ([if-not-present never])`);
    assert.ok(!refused.lines.some((line) => line.startsWith('Starting service')), refused.lines.join('\n'));
    const started = await prepared(settings, { name: BUSYBOX }, { services: [service(LOCAL_ONLY, ['never'])] });
    assert.equal(started.error, null);
    assert.ok(started.lines.includes('Using locally found image version due to "never" pull policy'), started.lines.join('\n'));
  });

  it('with alwaysFallsBackToLocal (runner exec), an always pull that fails uses the local image with a warning; a missing image still fails', async () => {
    const settings: DockerSettings = { pullPolicy: ['if-not-present'], allowedPullPolicies: ['always', 'if-not-present', 'never'], alwaysFallsBackToLocal: true };
    const { lines, error } = await prepared(settings, { name: LOCAL_ONLY, pull_policy: ['always'] });
    assert.equal(error, null);
    const warned = lines.findIndex((line) => line.startsWith('WARNING: Failed to pull image with policy "always": '));
    assert.ok(warned > 0, lines.join('\n'));
    assert.equal(lines[warned + 1], 'Using locally found image version: the "always" pull failed');
    const missing = await prepared(settings, { name: MISSING, pull_policy: ['always'] });
    assert.ok(missing.error instanceof ExecutorError && missing.error.kind === 'image', String(missing.error));
  });
});
