import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const ELSEWHERE = 'https://tools.example.org';

describe('cross-origin requests (CORS)', () => {
  let gantry: TestCoordinator;
  before(async () => {
    gantry = await startTestCoordinator({ externalUrl: 'http://gantry.test/' });
    const created = await gantry.api('POST', '/projects', { body: { name: 'shared', visibility: 'public' } });
    assert.equal(created.status, 201, created.text);
  });
  after(() => gantry.close());

  const inject = (method: 'GET' | 'OPTIONS' | 'POST', url: string, headers: Record<string, string>) =>
    gantry.coordinator.app.inject({ method, url, headers });

  it('answers an API preflight from any origin without a token, before sign-in and routing', async () => {
    const answer = await inject('OPTIONS', '/api/v4/projects', {
      origin: ELSEWHERE,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'private-token, content-type',
    });
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.body, '');
    assert.equal(answer.headers['access-control-allow-origin'], '*');
    assert.equal(answer.headers['access-control-allow-methods'], 'GET, HEAD, PUT, PATCH, POST, DELETE, OPTIONS');
    assert.equal(answer.headers['access-control-allow-headers'], 'private-token, content-type');
    assert.equal(answer.headers['access-control-max-age'], '7200');
    assert.equal(answer.headers['access-control-allow-credentials'], undefined, 'no cookie crosses origins');
    const deep = await inject('OPTIONS', '/api/v4/projects/1/repository/files/a%2Fb.txt?ref=main', { origin: ELSEWHERE, 'access-control-request-method': 'DELETE' });
    assert.equal(deep.statusCode, 200);
    assert.equal(deep.headers['access-control-allow-origin'], '*');
  });

  it('lets a script read an answer and its pagination headers', async () => {
    const answer = await inject('GET', '/api/v4/projects?per_page=1', { origin: ELSEWHERE, 'private-token': gantry.rootToken });
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.headers['access-control-allow-origin'], '*');
    const exposed = String(answer.headers['access-control-expose-headers']).split(', ');
    for (const name of ['Link', 'X-Total', 'X-Total-Pages', 'X-Per-Page', 'X-Page', 'X-Next-Page', 'X-Prev-Page', 'X-Gitlab-File-Path', 'ETag']) {
      assert.ok(exposed.includes(name), `${name} is exposed`);
    }
    assert.equal(answer.headers['x-total'], '1');
    assert.match(String(answer.headers.vary), /Origin/);
  });

  it('keeps the headers on refusals, so a script sees the 401 or 404 for what it is', async () => {
    const refused = await inject('GET', '/api/v4/user', { origin: ELSEWHERE, 'private-token': 'wrong' });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.headers['access-control-allow-origin'], '*');
    const missing = await inject('GET', '/api/v4/no/such/route', { origin: ELSEWHERE });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers['access-control-allow-origin'], '*');
  });

  it('echoes the instance\'s own origin with credentials allowed, as GitLab does', async () => {
    const answer = await inject('GET', '/api/v4/projects', { origin: 'http://gantry.test' });
    assert.equal(answer.headers['access-control-allow-origin'], 'http://gantry.test');
    assert.equal(answer.headers['access-control-allow-credentials'], 'true');
  });

  it('adds nothing without an Origin, and nothing outside the API and the discovery documents', async () => {
    const plain = await inject('GET', '/api/v4/projects', {});
    assert.equal(plain.headers['access-control-allow-origin'], undefined);
    const git = await inject('GET', '/root/shared.git/info/refs?service=git-upload-pack', { origin: ELSEWHERE });
    assert.equal(git.statusCode, 200);
    assert.equal(git.headers['access-control-allow-origin'], undefined);
    const page = await inject('GET', '/users/sign_in', { origin: ELSEWHERE });
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['access-control-allow-origin'], undefined);
    const gitPreflight = await inject('OPTIONS', '/root/shared.git/info/refs', { origin: ELSEWHERE, 'access-control-request-method': 'GET' });
    assert.equal(gitPreflight.headers['access-control-allow-origin'], undefined);
  });

  it('lets any origin read the OIDC discovery documents, and nothing else there', async () => {
    const configuration = await inject('GET', '/.well-known/openid-configuration', { origin: ELSEWHERE });
    assert.equal(configuration.statusCode, 200);
    assert.equal(configuration.headers['access-control-allow-origin'], '*');
    assert.equal(configuration.headers['access-control-allow-methods'], 'GET, HEAD');
    const keys = await inject('GET', '/oauth/discovery/keys', { origin: ELSEWHERE });
    assert.equal(keys.headers['access-control-allow-origin'], '*');
    const post = await inject('OPTIONS', '/oauth/discovery/keys', { origin: ELSEWHERE, 'access-control-request-method': 'POST' });
    assert.equal(post.statusCode, 200);
    assert.equal(post.headers['access-control-allow-origin'], undefined, 'a refused preflight allows nothing');
  });

  it('leaves an OPTIONS that is no preflight unrouted', async () => {
    const answer = await inject('OPTIONS', '/api/v4/projects', { origin: ELSEWHERE });
    assert.equal(answer.statusCode, 404);
    const noOrigin = await inject('OPTIONS', '/api/v4/projects', { 'access-control-request-method': 'GET' });
    assert.equal(noOrigin.statusCode, 404);
  });
});
