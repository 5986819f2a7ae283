/** `runner exec --executor docker`: a job in its image sees the working tree's uncommitted file; clear errors when the engine or an image is missing. */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { BUSYBOX, dockerReady, skipDocker } from '../executors/docker-support.ts';
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

  it('runs a job whose image says pull_policy: always when no registry answers: the engine\'s image, with a warning', async () => {
    // A tag no registry serves (localhost:1 refuses connections): its pull fails, online or not.
    const docker = await dockerReady();
    await docker.getImage(BUSYBOX).tag({ repo: 'localhost:1/gantry/exec-pull-policy', tag: 'test' });
    try {
      writeFiles(dir, {
        '.gitlab-ci.yml': 'fresh:\n  image: { name: "localhost:1/gantry/exec-pull-policy:test", pull_policy: always }\n  services: [{ name: gantry/busybox:latest, pull_policy: [never], command: [sleep, "30"] }]\n  script: [echo ran]\n',
      });
      const result = await exec(dir, { executor: 'docker' });
      assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
      assert.match(result.stdout, /^fresh +\| ran$/m);
      const log = readFileSync(/^log of fresh: (.+)$/m.exec(result.stdout)?.[1] ?? '', 'utf8');
      assert.match(log, /^.*WARNING: Failed to pull image with policy "always": .*\n.*Using locally found image version: the "always" pull failed/m);
      assert.match(log, /Using locally found image version due to "never" pull policy/);
    } finally {
      await docker.getImage('localhost:1/gantry/exec-pull-policy:test').remove().catch(() => undefined);
    }
  });

  it('says in one line that an image is not there', async () => {
    writeFiles(dir, { '.gitlab-ci.yml': 'ghost:\n  image: gantry/no-such-image:never\n  script: [echo never]\n' });
    const result = await exec(dir, { executor: 'docker' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^runner exec: image gantry\/no-such-image:never \(job "ghost"\) is not there: it is not on the Docker engine and pulling it failed \(.+\)\n$/);
    assert.equal(result.stdout, '', 'no job ran');
  });

  it('does not pull an image whose pull_policy is never', async () => {
    writeFiles(dir, { '.gitlab-ci.yml': 'ghost:\n  image:\n    name: gantry/no-such-image:never\n    pull_policy: never\n  script: [echo never]\n' });
    const result = await exec(dir, { executor: 'docker' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^runner exec: image gantry\/no-such-image:never \(job "ghost"\) is not there: it is not on the Docker engine and its pull_policy is never\n$/);
    assert.equal(result.stdout, '', 'no job ran');
  });

  it('checks an image named through variables known before the run as the runner expands it: the CI file\'s, then --variable', async () => {
    writeFiles(dir, {
      '.gitlab-ci.yml': 'variables:\n  KIND: image\n  NAME: gantry/no-such-$KIND\nghost:\n  image:\n    name: $NAME:never\n    pull_policy: never\n  script: [echo never]\n',
    });
    const fromFile = await exec(dir, { executor: 'docker' });
    assert.equal(fromFile.code, 1);
    assert.match(fromFile.stderr, /^runner exec: image gantry\/no-such-image:never \(job "ghost"\) is not there: it is not on the Docker engine and its pull_policy is never\n$/);
    const overridden = await exec(dir, { executor: 'docker', variable: ['KIND=thing'] });
    assert.equal(overridden.code, 1);
    assert.match(overridden.stderr, /^runner exec: image gantry\/no-such-thing:never \(job "ghost"\) is not there: it is not on the Docker engine and its pull_policy is never\n$/);
    assert.equal(overridden.stdout, '', 'no job ran');
  });

  it('says in one line that no engine answers', async () => {
    const before = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = `unix://${dir}/no-engine.sock`;
    try {
      const result = await exec(dir, { executor: 'docker' });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^runner exec: --executor docker: no Docker engine answers at unix:\/\/\S+\/no-engine\.sock \(.+\)\n$/);
    } finally {
      if (before === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = before;
    }
  });
});
