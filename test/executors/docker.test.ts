import assert from 'node:assert/strict';
import { describe, it, before } from 'node:test';
import type Docker from 'dockerode';
import { DockerExecutor } from '../../src/executors/docker/docker-executor.ts';
import { LABEL_JOB, LABEL_MANAGED } from '../../src/executors/docker/labels.ts';
import { executorConformance, prepareRequest, runCollect } from './conformance.ts';
import { BUSYBOX, DEBIAN, dockerReady, skipDocker } from './docker-support.ts';

async function leftovers(docker: Docker, jobId: number): Promise<string[]> {
  const filters = JSON.stringify({ label: [`${LABEL_MANAGED}=true`, `${LABEL_JOB}=${jobId}`] });
  const containers = await docker.listContainers({ all: true, filters });
  const networks = await docker.listNetworks({ filters });
  const volumes = (await docker.listVolumes({ filters })).Volumes ?? [];
  return [...containers.map((c) => `container ${c.Names[0]}`), ...networks.map((n) => `network ${n.Name}`), ...volumes.map((v) => `volume ${v.Name}`)];
}

describe('docker executor', { skip: skipDocker }, () => {
  for (const [image, shell] of [[BUSYBOX, 'sh'], [DEBIAN, 'bash']] as const) {
    executorConformance(`docker (${image})`, { realShell: true }, async () => {
      const docker = await dockerReady();
      return {
        executor: new DockerExecutor({ pullPolicy: ['if-not-present'] }, docker),
        shell,
        realShell: true,
        image,
        assertNothingLeft: async (jobId) => assert.deepEqual(await leftovers(docker, jobId), []),
      };
    });
  }
});
