/** The job token's header for git's first request: for that repository URL only, after any configuration the environment already gives git. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proactiveAuthEnvironment } from '../../src/runner/job/git-auth.ts';

const basic = (credentials: string): string => `Authorization: Basic ${Buffer.from(credentials).toString('base64')}`;

describe('the job token sent with git\'s first request', () => {
  it('names the repository URL without its credentials, decoded as git would send them', () => {
    assert.deepEqual(proactiveAuthEnvironment('https://gitlab-ci-token:a%2Fb%40c@gitlab.example.com:8443/group/project.git', {}), {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.https://gitlab.example.com:8443/group/project.git.extraHeader',
      GIT_CONFIG_VALUE_0: basic('gitlab-ci-token:a/b@c'),
    });
  });

  it('comes after the settings the environment already has', () => {
    const environment = proactiveAuthEnvironment('http://gitlab-ci-token:t@localhost/p.git', { GIT_CONFIG_COUNT: '2' });
    assert.deepEqual(environment, { GIT_CONFIG_COUNT: '3', GIT_CONFIG_KEY_2: 'http.http://localhost/p.git.extraHeader', GIT_CONFIG_VALUE_2: basic('gitlab-ci-token:t') });
  });

  it('is nothing for a URL without a password, a path, ssh, or a count git itself would refuse', () => {
    assert.deepEqual(proactiveAuthEnvironment('http://localhost/p.git', {}), {});
    assert.deepEqual(proactiveAuthEnvironment('http://gitlab-ci-token@localhost/p.git', {}), {});
    assert.deepEqual(proactiveAuthEnvironment('/srv/git/p.git', {}), {});
    assert.deepEqual(proactiveAuthEnvironment('ssh://git@localhost/p.git', {}), {});
    assert.deepEqual(proactiveAuthEnvironment('http://gitlab-ci-token:t@localhost/p.git', { GIT_CONFIG_COUNT: 'two' }), {});
  });
});
