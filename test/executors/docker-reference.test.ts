import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { referenceProblem } from '../../src/executors/docker/pull.ts';

describe('docker image references checked as the Docker client checks them', () => {
  it('accepts names with a registry, a port, a tag and a digest', () => {
    for (const image of [
      'busybox',
      'gantry/busybox:latest',
      'docker.io/library/alpine:3.20',
      'localhost:5000/team/app',
      'registry.example.com/a/b/c:v1.2-rc_3',
      `alpine@sha256:${'a'.repeat(64)}`,
      'Registry.Example.com/app',
    ]) assert.equal(referenceProblem(image), null, image);
  });

  it('refuses a name a variable that expanded to nothing left malformed', () => {
    assert.equal(referenceProblem('/busybox:latest'), 'invalid reference format');
    assert.equal(referenceProblem('busybox:'), 'invalid reference format');
    assert.equal(referenceProblem('registry.example.com//app'), 'invalid reference format');
    assert.equal(referenceProblem('app:tag with space'), 'invalid reference format');
  });

  it('names an upper-case repository and a bare image id in the client\'s words', () => {
    assert.equal(referenceProblem('Busybox'), 'invalid reference format: repository name (library/Busybox) must be lowercase');
    assert.equal(referenceProblem('registry.example.com/Team/app:v1'), 'invalid reference format: repository name (Team/app) must be lowercase');
    const id = 'f'.repeat(64);
    assert.equal(referenceProblem(id), `invalid repository name (${id}), cannot specify 64-byte hexadecimal strings`);
  });

  it('refuses a repository name longer than 255 characters', () => {
    assert.equal(referenceProblem(`a/${'b'.repeat(254)}`), 'repository name must not be more than 255 characters');
  });
});
