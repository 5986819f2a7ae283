import assert from 'node:assert/strict';
import { execa } from '#deps/execa';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type Docker from 'dockerode';
import tar from 'tar-stream';
import { DockerExecutor } from '../../src/executors/docker/docker-executor.ts';
import { LABEL_JOB, LABEL_MANAGED, ownerId, resourceLabels } from '../../src/executors/docker/labels.ts';
import { ExecutorError } from '../../src/executors/types.ts';
import { executorConformance, prepareRequest, runCollect } from './conformance.ts';
import { BUSYBOX, DEBIAN, dockerReady, skipDocker } from './docker-support.ts';

async function leftovers(docker: Docker, jobId: number): Promise<string[]> {
  const filters = JSON.stringify({ label: [`${LABEL_MANAGED}=true`, `${LABEL_JOB}=${jobId}`] });
  const containers = await docker.listContainers({ all: true, filters });
  const networks = await docker.listNetworks({ filters });
  const volumes = (await docker.listVolumes({ filters })).Volumes ?? [];
  return [...containers.map((c) => `container ${c.Names[0]}`), ...networks.map((n) => `network ${n.Name}`), ...volumes.map((v) => `volume ${v.Name}`)];
}

const target = (executor: DockerExecutor) => ({ executor, shell: 'sh' as const, realShell: true, image: BUSYBOX });

/** A tar archive of one file. */
async function tarWith(name: string, content: string): Promise<Buffer> {
  const pack = tar.pack();
  pack.entry({ name, mode: 0o644 }, content);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack as unknown as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A pid that certainly ran on this machine and is gone now. */
async function deadPid(): Promise<number> {
  const child = execa('true');
  await child;
  return child.pid ?? 999_999;
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
        assertNothingLeft: async ({ jobId }) => assert.deepEqual(await leftovers(docker, jobId), []),
      };
    });
  }

  for (const [how, probeFromHost, probeImage] of [['from this machine', true, BUSYBOX], ['from a busybox probe container', false, BUSYBOX], ['from a bash probe container', false, DEBIAN]] as const) it(`starts services on a per-job network under their aliases, waits for their port (${how}), and gives them public variables only`, async () => {
    const docker = await dockerReady();
    const executor = new DockerExecutor({ pullPolicy: ['if-not-present'], waitForServicesTimeout: 20, helperImage: probeImage }, docker, { probeFromHost });
    const lines: string[] = [];
    const request = prepareRequest(target(executor), {
      services: [
        {
          name: BUSYBOX,
          alias: 'db',
          entrypoint: null,
          ports: [{ number: 8080 }],
          command: ['sh', '-c', 'sleep 1; mkdir -p /www && env > /www/env.txt && exec httpd -f -p 8080 -h /www'],
        },
      ],
      serviceVariables: { PUBLIC_ONE: 'visible' },
      log: (line) => lines.push(line),
    });
    const environment = await executor.prepare(request);
    try {
      assert.ok(lines.includes('Waiting for services to be up and running (timeout 20 seconds)...'), lines.join('\n'));
      assert.ok(!lines.some((line) => line.includes('probably didn')), lines.join('\n'));
      const result = await runCollect(environment, 'wget -qO- http://db:8080/env.txt\nwget -qO- http://gantry__busybox:8080/env.txt >/dev/null && echo by-image-alias', 'sh');
      assert.equal(result.exitCode, 0, result.output);
      assert.match(result.output, /PUBLIC_ONE=visible/);
      assert.match(result.output, /by-image-alias/);
    } finally {
      await environment.cleanup();
    }
    assert.deepEqual(await leftovers(docker, request.jobId), []);
  });

  it('warns, without failing, about a service whose port never answers', async () => {
    const docker = await dockerReady();
    const executor = new DockerExecutor({ pullPolicy: ['if-not-present'], waitForServicesTimeout: 2 }, docker);
    const lines: string[] = [];
    const request = prepareRequest(target(executor), {
      services: [{ name: BUSYBOX, alias: 'silent', entrypoint: null, ports: [{ number: 9999 }], command: ['sh', '-c', 'echo service-log-line; sleep 60'] }],
      // As the trace prints them: a warning's line starts with WARNING.
      log: (line, level) => lines.push(level === 'warning' ? `WARNING: ${line}` : line),
    });
    const environment = await executor.prepare(request);
    await environment.cleanup();
    assert.ok(lines.includes(`*** WARNING: Service ${BUSYBOX} probably didn't start properly.`), lines.join('\n'));
    assert.ok(lines.some((line) => line.includes('service-log-line')), lines.join('\n'));
  });

  it('cleans up only its own runner\'s job: another runner of this process with the same job id keeps its containers', async () => {
    const docker = await dockerReady();
    const executor = new DockerExecutor({ pullPolicy: ['if-not-present'], waitForServicesTimeout: 0 }, docker);
    const service = { name: BUSYBOX, alias: 'web', entrypoint: null, ports: [], command: ['sh', '-c', 'sleep 60'] };
    const first = prepareRequest(target(executor), { shortToken: 'runner-a', services: [service] });
    const second = prepareRequest(target(executor), { jobId: first.jobId, shortToken: 'runner-b', services: [service] });
    const [mine, theirs] = await Promise.all([executor.prepare(first), executor.prepare(second)]);
    try {
      await mine.cleanup();
      const result = await runCollect(theirs, 'nslookup web >/dev/null && echo service still there', 'sh');
      assert.deepEqual(result, { exitCode: 0, output: 'service still there\n' });
    } finally {
      await theirs.cleanup();
    }
    assert.deepEqual(await leftovers(docker, first.jobId), []);
  });

  it('runs a job without services on the default bridge (no network of its own), the script on the shell\'s stdin', async () => {
    const docker = await dockerReady();
    const executor = new DockerExecutor({ pullPolicy: ['if-not-present'] }, docker);
    const request = prepareRequest(target(executor));
    const environment = await executor.prepare(request);
    try {
      const filters = JSON.stringify({ label: [`${LABEL_MANAGED}=true`, `${LABEL_JOB}=${request.jobId}`] });
      assert.deepEqual(await docker.listNetworks({ filters }), []);
      const { exitCode, output } = await runCollect(environment, 'echo from stdin\ncat /proc/1/cmdline | tr "\\0" " "; echo', 'sh');
      assert.equal(exitCode, 0);
      assert.ok(output.startsWith('from stdin\n'), output);
      // The shell was given no script file: it read the script from its stdin.
      assert.ok(!output.includes('.gantry') && !output.includes('.sh '), output);
    } finally {
      await environment.cleanup();
    }
    assert.deepEqual(await leftovers(docker, request.jobId), []);
  });

  it('fails clearly for an image that cannot be had, per pull policy, and leaves nothing behind', async () => {
    const docker = await dockerReady();
    for (const policies of [['never'], ['if-not-present'], ['always']] as const) {
      const executor = new DockerExecutor({ pullPolicy: [...policies] }, docker);
      const request = prepareRequest({ ...target(executor), image: 'gantry/no-such-image:1' });
      await assert.rejects(executor.prepare(request), (error: unknown) => {
        assert.ok(error instanceof ExecutorError && error.kind === 'image');
        assert.match((error as Error).message, new RegExp(`^failed to pull image "gantry/no-such-image:1" with specified policies \\[${policies.join(' ')}\\]: `));
        return true;
      });
      assert.deepEqual(await leftovers(docker, request.jobId), []);
    }
    const never = new DockerExecutor({ pullPolicy: ['never'] }, docker);
    const present = await never.prepare(prepareRequest(target(never)));
    await present.cleanup();
  });

  it('refuses images and services outside allowed_images / allowed_services', async () => {
    const docker = await dockerReady();
    const executor = new DockerExecutor({ pullPolicy: ['if-not-present'], allowedImages: ['gantry/debian-*:*'], allowedServices: ['postgres:*'] }, docker);
    await assert.rejects(executor.prepare(prepareRequest(target(executor))), /The "gantry\/busybox:latest" image is not present on list of allowed images:\n- gantry\/debian-\*:\*/);
    const service = { name: BUSYBOX, alias: null, entrypoint: null, ports: [], command: null };
    await assert.rejects(executor.prepare(prepareRequest({ ...target(executor), image: DEBIAN }, { services: [service] })), /allowed services/);
  });

  it('applies network_mode, cap_drop, memory, extra_hosts and dns, and keeps named cache volumes between jobs while binding host paths', async () => {
    const docker = await dockerReady();
    const hostDir = await mkdtemp(path.join(os.tmpdir(), 'gantry-bind-'));
    await writeFile(path.join(hostDir, 'bound.txt'), 'from the host\n');
    const executor = new DockerExecutor(
      { pullPolicy: ['if-not-present'], networkMode: 'bridge', capDrop: ['CHOWN'], memory: '64m', extraHosts: ['gantry-extra:10.1.2.3'], dns: ['10.9.9.9'], volumes: ['/persist', `${hostDir}:/data:ro`] },
      docker,
    );
    const first = await executor.prepare(prepareRequest(target(executor)));
    try {
      const result = await runCollect(
        first,
        'touch /tmp/f; chown 1 /tmp/f && echo chown-worked || echo chown-refused\ncat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max\ngrep gantry-extra /etc/hosts\ngrep nameserver /etc/resolv.conf\ncat /data/bound.txt\necho kept > /persist/x\ntouch /data/y 2>/dev/null && echo writable || echo read-only',
        'sh',
      );
      assert.equal(result.exitCode, 0, result.output);
      assert.match(result.output, /chown-refused/);
      assert.match(result.output, /^67108864$/m);
      assert.match(result.output, /10\.1\.2\.3\s+gantry-extra/);
      assert.match(result.output, /nameserver 10\.9\.9\.9/);
      assert.match(result.output, /from the host/);
      assert.match(result.output, /read-only/);
    } finally {
      await first.cleanup();
    }
    const second = await executor.prepare(prepareRequest(target(executor)));
    try {
      assert.equal((await runCollect(second, 'cat /persist/x', 'sh')).output, 'kept\n');
    } finally {
      await second.cleanup();
      const cacheVolumes = await docker.listVolumes({ filters: JSON.stringify({ label: ['com.gantry.runner.kind=cache-volume', 'com.gantry.runner.short_token=conform1'] }) });
      for (const volume of cacheVolumes.Volumes ?? []) await docker.getVolume(volume.Name).remove();
    }
  });

  it('with network_mode naming a user network, job containers join it too (connected before start) and keep the per-job network for services', async () => {
    const docker = await dockerReady();
    const name = `gantry-test-net-${Date.now()}`;
    const network = await docker.createNetwork({ Name: name, CheckDuplicate: true });
    const outside = await docker.createContainer({
      Image: BUSYBOX,
      Cmd: ['sh', '-c', 'mkdir -p /www && echo outside-ok > /www/x && exec httpd -f -p 8080 -h /www'],
      HostConfig: { NetworkMode: name },
      NetworkingConfig: { EndpointsConfig: { [name]: { Aliases: ['outside'] } } },
    });
    await outside.start();
    try {
      const executor = new DockerExecutor({ pullPolicy: ['if-not-present'], networkMode: name, waitForServicesTimeout: 20 }, docker);
      const request = prepareRequest(target(executor), {
        services: [{ name: BUSYBOX, alias: 'svc', entrypoint: null, ports: [{ number: 8080 }], command: ['sh', '-c', 'mkdir -p /www && echo svc-ok > /www/x && exec httpd -f -p 8080 -h /www'] }],
      });
      const environment = await executor.prepare(request);
      try {
        const result = await runCollect(environment, 'wget -qO- http://outside:8080/x\nwget -qO- http://svc:8080/x', 'sh');
        assert.equal(result.exitCode, 0, result.output);
        assert.equal(result.output, 'outside-ok\nsvc-ok\n');
      } finally {
        await environment.cleanup();
      }
      await docker.getNetwork(network.id).inspect();
    } finally {
      await outside.remove({ force: true });
      await docker.getNetwork(network.id).remove();
    }
  });

  it('starts the first user script\'s container ahead: it runs before the script comes, receives the files copied in meanwhile, and runs the script', async () => {
    const docker = await dockerReady();
    const executor = new DockerExecutor({ pullPolicy: ['if-not-present'] }, docker);
    const request = prepareRequest(target(executor));
    const environment = await executor.prepare(request);
    const running = async () => docker.listContainers({ filters: JSON.stringify({ label: [`${LABEL_MANAGED}=true`, `${LABEL_JOB}=${request.jobId}`], status: ['running'] }) });
    try {
      environment.prestart?.('sh');
      let ahead: Docker.ContainerInfo[] = [];
      for (let tries = 0; tries < 200 && ahead.length === 0; tries++) {
        ahead = await running();
        if (ahead.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(ahead.length, 1, 'a container runs before any script');
      await environment.copyIn(Readable.from(await tarWith('README', 'hello\n')), environment.info.projectDir);
      const result = runCollect(environment, 'cat README; sleep 2', 'sh');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.deepEqual((await running()).map((container) => container.Id), [ahead[0]!.Id], 'the script runs in it, no other container');
      assert.deepEqual(await result, { exitCode: 0, output: 'hello\n' });
    } finally {
      await environment.cleanup();
    }
    assert.deepEqual(await leftovers(docker, request.jobId), []);
  });

  it('gives the directories leading to a destination the mode of the archive\'s root, below the mount point; a later copy leaves their modes alone', async () => {
    const docker = await dockerReady();
    const executor = new DockerExecutor({ pullPolicy: ['if-not-present'] }, docker);
    const environment = await executor.prepare(prepareRequest(target(executor)));
    try {
      const root = tar.pack();
      root.entry({ name: './', type: 'directory', mode: 0o777 });
      root.finalize();
      await environment.copyIn(root as unknown as Readable, environment.info.projectDir);
      await environment.copyIn(Readable.from(await tarWith('later.txt', 'later\n')), environment.info.projectDir);
      const result = await runCollect(environment, 'stat -c "%a %n" /builds /builds/group /builds/group/project /builds/group/project/later.txt', 'sh');
      assert.deepEqual(result, { exitCode: 0, output: '755 /builds\n777 /builds/group\n777 /builds/group/project\n644 /builds/group/project/later.txt\n' });
    } finally {
      await environment.cleanup();
    }
  });

  it('reports the status the script\'s shell ends with, nothing of how it came in the output (xtrace on too); with an entrypoint, the container\'s exit code', async () => {
    const docker = await dockerReady();
    const executor = new DockerExecutor({ pullPolicy: ['if-not-present'] }, docker);
    const plain = await executor.prepare(prepareRequest({ ...target(executor), image: DEBIAN }));
    try {
      assert.deepEqual(await runCollect(plain, 'set -o xtrace\necho hi\nexit 4', 'bash'), { exitCode: 4, output: '+ echo hi\nhi\n+ exit 4\n' });
      assert.deepEqual(await runCollect(plain, 'printf "no newline"; false', 'bash'), { exitCode: 1, output: 'no newline' });
    } finally {
      await plain.cleanup();
    }
    // An entrypoint that ends with 0 whatever it ran: gitlab-runner reports the container's code.
    const request = prepareRequest({ ...target(executor), image: DEBIAN });
    const wrapped = await executor.prepare({ ...request, image: { name: DEBIAN, entrypoint: ['sh', '-c', '"$@"; exit 0', 'entrypoint'] } });
    try {
      assert.deepEqual(await runCollect(wrapped, 'echo "inside 0"\nexit 4', 'bash'), { exitCode: 0, output: 'inside 0\n' });
    } finally {
      await wrapped.cleanup();
    }
  });

  it('removes what a dead runner process left (found by label), and only that', async () => {
    const docker = await dockerReady();
    const dead = ownerId(await deadPid());
    const alive = ownerId(1);
    const make = async (owner: string, tag: string) => {
      const labels = resourceLabels('build', 424242, 'sweeptst', owner);
      const volume = await docker.createVolume({ Name: `gantry-sweep-${tag}-${Date.now()}`, Labels: { ...labels, 'com.gantry.runner.kind': 'build-volume' } });
      const network = await docker.createNetwork({ Name: `gantry-sweep-${tag}-${Date.now()}`, Labels: labels });
      const container = await docker.createContainer({ Image: BUSYBOX, Cmd: ['true'], Labels: labels, HostConfig: { Binds: [`${volume.name}:/x`] } });
      return { volume: volume.name, network: network.id, container: container.id };
    };
    const orphan = await make(dead, 'dead');
    const live = await make(alive, 'live');
    try {
      const executor = new DockerExecutor({}, docker);
      const removed = await executor.sweep();
      assert.ok(removed >= 3, `removed ${removed}`);
      await assert.rejects(docker.getContainer(orphan.container).inspect());
      await assert.rejects(docker.getNetwork(orphan.network).inspect());
      await assert.rejects(docker.getVolume(orphan.volume).inspect());
      await docker.getContainer(live.container).inspect();
      await docker.getNetwork(live.network).inspect();
      await docker.getVolume(live.volume).inspect();
    } finally {
      await docker.getContainer(live.container).remove({ force: true }).catch(() => undefined);
      await docker.getNetwork(live.network).remove().catch(() => undefined);
      await docker.getVolume(live.volume).remove().catch(() => undefined);
    }
  });
});
