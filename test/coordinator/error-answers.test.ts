import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { ERROR_ANSWERS, messageAnswers } from '../../src/coordinator/http/error-responses.ts';
import { installErrorHandling } from '../../src/coordinator/http/errors.ts';
import { ERROR_CODES, GantryError, invalidParams, validationFailed, type ErrorCode, type ErrorDetails } from '../../src/shared/errors.ts';

const DETAILS: ErrorDetails = {
  params: [{ name: 'title', problem: 'is missing' }, { name: 'visibility', problem: 'does not have a valid value' }],
  fields: { path: ['has already been taken'] },
  scopes: ['api', 'read_api'],
};

/** GitLab's error bodies: `{"message": text, [texts] or {field: [reasons]}}` or `{"error": text, ...}`. */
function assertGitlabShaped(body: unknown, where: string): void {
  assert.ok(typeof body === 'object' && body !== null && !Array.isArray(body), `${where}: ${JSON.stringify(body)}`);
  const record = body as Record<string, unknown>;
  if ('message' in record) {
    assert.deepEqual(Object.keys(record), ['message'], where);
    const message = record.message;
    if (typeof message === 'string') {
      assert.ok(message.trim() !== '', `${where}: empty message`);
    } else if (Array.isArray(message)) {
      assert.ok(message.length > 0 && message.every((text) => typeof text === 'string' && text !== ''), `${where}: ${JSON.stringify(message)}`);
    } else {
      assert.ok(typeof message === 'object' && message !== null, where);
      for (const [field, reasons] of Object.entries(message)) {
        assert.ok(Array.isArray(reasons) && reasons.length > 0 && reasons.every((reason) => typeof reason === 'string'), `${where}: ${field}`);
      }
    }
    return;
  }
  assert.ok(typeof record.error === 'string' && record.error !== '', `${where}: ${JSON.stringify(body)}`);
  for (const key of Object.keys(record)) assert.ok(['error', 'error_description', 'scope'].includes(key), `${where}: ${key}`);
}

describe('the error handler', () => {
  let app: FastifyInstance;

  before(async () => {
    app = Fastify();
    installErrorHandling(app);
    app.get<{ Params: { code: string } }>('/raise/:code', async (request) => {
      throw new GantryError(request.params.code as ErrorCode, 'what went wrong', DETAILS);
    });
    app.get('/overridden', { config: { errorAnswers: messageAnswers(405, ['GANTRY_E_TAG_PROTECTED']) } }, async () => {
      throw new GantryError('GANTRY_E_TAG_PROTECTED', 'You are not allowed to create this tag as it is protected.');
    });
    app.get('/params', async () => {
      throw invalidParams([{ name: 'title', problem: 'is missing' }, { name: 'page', problem: 'is invalid' }]);
    });
    app.get('/fields', async () => {
      throw validationFailed({ name: ["can't be blank"], path: ['is too long (maximum is 255 characters)'] });
    });
    app.get('/sudo', async () => {
      throw new GantryError('GANTRY_E_USER_NOT_FOUND', 'no such user', { resource: "User with ID or username 'ghost'" });
    });
    app.get('/bug', async () => {
      throw new TypeError('undefined is not a function');
    });
    await app.ready();
  });
  after(() => app.close());

  it('answers every code of the catalogue with its status and a GitLab-shaped JSON body', async () => {
    for (const code of ERROR_CODES) {
      const response = await app.inject({ method: 'GET', url: `/raise/${code}` });
      assert.equal(response.statusCode, ERROR_ANSWERS[code].status, code);
      assert.match(String(response.headers['content-type']), /^application\/json/, code);
      assertGitlabShaped(response.json(), code);
    }
  });

  it("says which resource is missing, and which parameters or fields are wrong, as GitLab does", async () => {
    assert.deepEqual((await app.inject({ method: 'GET', url: '/raise/GANTRY_E_PROJECT_NOT_FOUND' })).json(), { message: '404 Project Not Found' });
    assert.deepEqual((await app.inject({ method: 'GET', url: '/sudo' })).json(), { message: "404 User with ID or username 'ghost' Not Found" });
    assert.deepEqual((await app.inject({ method: 'GET', url: '/params' })).json(), { error: 'title is missing, page is invalid' });
    assert.deepEqual((await app.inject({ method: 'GET', url: '/fields' })).json(), {
      message: { name: ["can't be blank"], path: ['is too long (maximum is 255 characters)'] },
    });
    assert.deepEqual((await app.inject({ method: 'GET', url: '/raise/GANTRY_E_AT_LEAST_ONE_PARAM_REQUIRED' })).json(), {
      error: 'title, visibility are missing, at least one parameter must be provided',
    });
    const scope = await app.inject({ method: 'GET', url: '/raise/GANTRY_E_TOKEN_SCOPE_INSUFFICIENT' });
    assert.equal(scope.json().scope, 'api read_api');
  });

  it("lets a route answer a code its own way through its config", async () => {
    const response = await app.inject({ method: 'GET', url: '/overridden' });
    assert.equal(response.statusCode, 405);
    assert.deepEqual(response.json(), { message: 'You are not allowed to create this tag as it is protected.' });
    const elsewhere = await app.inject({ method: 'GET', url: '/raise/GANTRY_E_TAG_PROTECTED' });
    assert.equal(elsewhere.statusCode, 403);
  });

  it('answers unknown routes and unplanned failures without leaking the failure', async () => {
    const missing = await app.inject({ method: 'GET', url: '/nowhere' });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { error: '404 Not Found' });
    const bug = await app.inject({ method: 'GET', url: '/bug' });
    assert.equal(bug.statusCode, 500);
    assert.deepEqual(bug.json(), { message: '500 Internal Server Error' });
  });
});
