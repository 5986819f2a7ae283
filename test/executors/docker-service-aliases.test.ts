/** The network aliases of a service, as gitlab-runner names them (no engine needed). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serviceAliases } from '../../src/executors/docker/services.ts';

const service = (name: string, alias: string | null = null) => ({ name, alias, entrypoint: null, command: null, ports: [] });

describe('docker service aliases', () => {
  it('replaces slashes by __ and -, without tag or digest', () => {
    assert.deepEqual(serviceAliases(service('tutum/wordpress:latest')), ['tutum__wordpress', 'tutum-wordpress']);
    assert.deepEqual(serviceAliases(service('postgres@sha256:0123abcd')), ['postgres']);
    assert.deepEqual(serviceAliases(service('redis:7', 'cache, store')), ['redis', 'cache', 'store']);
  });

  it('keeps the registry, without its port', () => {
    assert.deepEqual(serviceAliases(service('docker.io/library/nginx')), ['docker.io__library__nginx', 'docker.io-library-nginx']);
    assert.deepEqual(serviceAliases(service('gcr.io/google-containers/redis:v1')), ['gcr.io__google-containers__redis', 'gcr.io-google-containers-redis']);
    assert.deepEqual(serviceAliases(service('registry.example.com:5000/group/db:1.2', 'db')), ['registry.example.com__group__db', 'registry.example.com-group-db', 'db']);
    assert.deepEqual(serviceAliases(service('localhost:5000/svc')), ['localhost__svc', 'localhost-svc']);
  });
});
