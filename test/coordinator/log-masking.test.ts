import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/shared/logger.ts';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProjectWithRepository } from './groups-fixtures.ts';

/** Query parameter names that carry the token, as written on the wire (several decode to `private_token`). */
const SECRET_PARAMETERS = [
  'private_token',
  'private%5Ftoken',
  'private_tok%65n',
  '%70rivate_token',
  'PRIVATE_TOKEN',
  'private_token[]',
  'private_token%5B%5D',
  'job_token',
  'job%5Ftoken',
  'access_token',
  'token',
  't%6Fken',
  'password',
  'pass%77ord',
  'runners_token',
  'registration_token',
  'new_password',
  // Integration settings (PUT /projects/:id/services/<slug> reads its parameters from the query too).
  'api_key',
  'api%5Fkey',
];

describe('credentials in the log', () => {
  const lines: string[] = [];
  let gantry: TestCoordinator;
  let projectPath: string;

  before(async () => {
    // Trace level: every line fastify and Gantry write, not only the request summaries.
    const logger = createLogger({ level: 'trace', destination: { write: (line: string) => lines.push(line) } });
    gantry = await startTestCoordinator({ extra: { logger } });
    const group = await makeGroup(gantry, 'logged', { visibility: 'public' });
    const project = await makeProjectWithRepository(gantry, group.id, 'repo', { visibility: 'public', withReadme: true });
    projectPath = `logged/${project.path}`;
  });
  after(() => gantry.close());

  const inject = (options: { method?: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: string }) =>
    gantry.coordinator.app.inject({ method: options.method ?? 'GET', url: options.url, headers: options.headers, payload: options.payload });

  it('authenticates with decoded parameter names, as GitLab does', async () => {
    for (const name of ['private%5Ftoken', 'private_tok%65n', '%70rivate_token']) {
      const response = await inject({ url: `/api/v4/user?${name}=${ROOT_TOKEN}` });
      assert.equal(response.statusCode, 200, name);
    }
  });

  it('never writes the token, in any parameter spelling, header, body, git URL or failure', async () => {
    for (const name of SECRET_PARAMETERS) {
      await inject({ url: `/api/v4/user?per_page=1&${name}=${ROOT_TOKEN}` });
      await inject({ url: `/api/v4/projects?${name}=${ROOT_TOKEN}&page=1` });
      // An answer the caller did not expect (unknown route, bad request) logs the URL too.
      await inject({ url: `/api/v4/no/such/route?${name}=${ROOT_TOKEN}` });
      await inject({ url: `/api/v4/groups?page=abc&${name}=${ROOT_TOKEN}` });
    }
    const basic = `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}`;
    const headerForms: Array<Record<string, string>> = [
      { 'private-token': ROOT_TOKEN },
      { authorization: `Bearer ${ROOT_TOKEN}` },
      { authorization: basic },
      { 'job-token': ROOT_TOKEN },
      { cookie: `_gitlab_session=${ROOT_TOKEN}` },
    ];
    for (const headers of headerForms) {
      await inject({ url: '/api/v4/user', headers });
      await inject({ url: `/${projectPath}.git/info/refs?service=git-upload-pack`, headers });
    }
    // A wrong token in the query string answers 401: its request is logged as well.
    await inject({ url: `/api/v4/user?private_token=${ROOT_TOKEN}x` });
    // Bodies: form and JSON, anonymous and signed in.
    await inject({ method: 'POST', url: '/api/v4/projects', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `name=p1&private_token=${ROOT_TOKEN}` });
    await inject({ method: 'POST', url: '/api/v4/projects', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'p2', private_token: ROOT_TOKEN }) });
    await inject({ method: 'POST', url: `/api/v4/projects?private_token=${ROOT_TOKEN}`, headers: { 'content-type': 'application/json' }, payload: '{"name":' });
    // Web downloads sign in the same way.
    await inject({ url: `/${projectPath}/-/archive/main/repo-main.zip?private_token=${ROOT_TOKEN}` });

    const logged = lines.join('');
    assert.ok(lines.length > 100, `only ${lines.length} lines were logged`);
    assert.ok(!logged.includes(ROOT_TOKEN), `a token reached the log:\n${lines.filter((line) => line.includes(ROOT_TOKEN)).join('')}`);
    assert.ok(!logged.includes(Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')), 'basic credentials reached the log');
    // The masked URLs still say what was asked for.
    assert.ok(logged.includes('"url":"/api/v4/user?per_page=1&private%5Ftoken=[MASKED]"'), 'the masked URL is not logged as expected');
  });

  it('masks credentials in messages and errors logged by the code', () => {
    const captured: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => captured.push(line) } });
    const secret = 'glpat-secret-0123456789';
    logger.error({ err: new Error(`clone of https://gitlab-ci-token:${secret}@example.com/group/p.git failed`) }, 'fetch failed');
    logger.warn({ stderr: `fatal: unable to access 'http://oauth2:${secret}@host/x.git/'` }, 'git failed');
    logger.info(`GET /api/v4/user?private%5Ftoken=${secret} answered`);
    logger.info({ headers: { authorization: `Bearer ${secret}` }, url: `/api/v4/user?job_token=${secret}` }, 'request');
    logger.warn({ message: `upstream said PRIVATE-TOKEN: ${secret}` }, 'odd');
    logger.warn({ database: `postgres://gantry:${secret}@db.example.com/gantry` }, 'database lost');
    const text = captured.join('');
    assert.equal(captured.length, 6);
    assert.ok(!text.includes(secret), `a secret reached the log:\n${text}`);
    assert.ok(text.includes('https://gitlab-ci-token:[MASKED]@example.com/group/p.git'), text);
  });
});
