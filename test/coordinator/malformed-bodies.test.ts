import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { apiRoutes, samplePath } from './route-walk.ts';

/** Bodies a careless client or an attacker sends, each with its Content-Type. */
const MALFORMED: ReadonlyArray<{ name: string; contentType: string; payload: string }> = [
  { name: 'multipart without a boundary', contentType: 'multipart/form-data', payload: 'name=x' },
  { name: 'multipart with an empty boundary', contentType: 'multipart/form-data; boundary=', payload: 'name=x' },
  { name: 'multipart not matching its boundary', contentType: 'multipart/form-data; boundary=abc', payload: '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--xyz--\r\n' },
  { name: 'multipart with broken part headers', contentType: 'multipart/form-data; boundary=abc', payload: '--abc\r\nno header here\r\n\r\n1\r\n--abc--\r\n' },
  { name: 'multipart cut short', contentType: 'multipart/form-data; boundary=abc', payload: '--abc\r\nContent-Disposition: form-data; name="a"\r\n\r\n1' },
  { name: 'malformed JSON', contentType: 'application/json', payload: '{"name":' },
  { name: 'JSON array', contentType: 'application/json', payload: '[1,2]' },
  { name: 'JSON scalar', contentType: 'application/json', payload: '"x"' },
  { name: 'JSON null', contentType: 'application/json', payload: 'null' },
  { name: 'JSON prototype pollution', contentType: 'application/json', payload: '{"__proto__":{"admin":true}}' },
  { name: 'JSON in another charset', contentType: 'application/json; charset=utf-16', payload: '{"a":1}' },
  { name: 'broken percent-encoding', contentType: 'application/x-www-form-urlencoded', payload: 'name=%E0%A4%A&x=%&%%%=1' },
  { name: 'invalid UTF-8 in a form', contentType: 'application/x-www-form-urlencoded', payload: 'name=%FF%FE' },
  { name: 'unknown content type', contentType: 'application/xml', payload: '<a/>' },
  { name: 'invalid content type', contentType: 'not a type;;;', payload: 'x' },
];

describe('malformed bodies on every write endpoint', () => {
  let gantry: TestCoordinator;
  let writes: Array<{ method: string; url: string }>;

  before(async () => {
    gantry = await startTestCoordinator();
    writes = apiRoutes(gantry).filter((route) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method));
  });
  after(() => gantry.close());

  const send = (method: string, path: string, contentType: string, payload: string, token: string | null) =>
    gantry.coordinator.app.inject({
      method: method as 'POST',
      url: `/api/v4${path}`,
      headers: { 'content-type': contentType, ...(token === null ? {} : { 'private-token': token }) },
      payload,
    });

  it('walks the write routes of the route table', () => {
    assert.ok(writes.length >= 60, `only ${writes.length} write routes`);
  });

  /** Streams its own multipart body, after checking the job (no such job or a wrong token: 403). */
  const CHECKS_JOB_BEFORE_BODY = new Set(['POST /api/v4/jobs/:id/artifacts']);
  /** Takes the body as a file's bytes whatever its type (curl's `--upload-file`): nothing to parse, so nothing malformed. */
  const RAW_FILE_BODY = new Set(['PUT /api/v4/projects/:id/packages/generic/:package_name/:package_version/:file_name']);

  it('answers 400 to multipart without a boundary, signed in or not', async () => {
    const failures: string[] = [];
    for (const route of writes) {
      for (const token of [ROOT_TOKEN, null]) {
        const response = await send(route.method, samplePath(route.url), 'multipart/form-data', 'name=x', token);
        if (CHECKS_JOB_BEFORE_BODY.has(`${route.method} ${route.url}`)) {
          // The runner's upload checks the job and its token before it reads a byte (reference §6).
          if (response.statusCode !== 403) failures.push(`${route.method} ${route.url}: ${response.statusCode} before the job check`);
          continue;
        }
        if (RAW_FILE_BODY.has(`${route.method} ${route.url}`)) {
          // Its answer is the project's and the caller's (the sample project does not exist): never the parser's 400.
          const expected = token ? 404 : 401;
          if (response.statusCode !== expected) failures.push(`${route.method} ${route.url}: ${response.statusCode} ${response.body} for a raw file body`);
          continue;
        }
        if (response.statusCode !== 400) failures.push(`${route.method} ${route.url} ${token ? 'root' : 'anonymous'}: ${response.statusCode} ${response.body}`);
        else assert.match(JSON.parse(response.body).message, /^400 Bad request - multipart body is malformed/);
      }
    }
    assert.deepEqual(failures, []);
  });

  it('never answers 5xx to a malformed body', async () => {
    const failures: string[] = [];
    for (const route of writes) {
      for (const body of MALFORMED) {
        for (const token of [ROOT_TOKEN, null]) {
          const response = await send(route.method, samplePath(route.url), body.contentType, body.payload, token);
          if (response.statusCode >= 500) failures.push(`${route.method} ${route.url} ${body.name} ${token ? 'root' : 'anonymous'}: ${response.statusCode} ${response.body}`);
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  it('answers with GitLab statuses for the common mistakes', async () => {
    const cases: Array<[string, string, number]> = [
      ['application/json', '{"name":', 400],
      ['application/xml', '<a/>', 415],
      ['not a type;;;', 'x', 415],
    ];
    for (const [contentType, payload, status] of cases) {
      const response = await send('POST', '/projects', contentType, payload, ROOT_TOKEN);
      assert.equal(response.statusCode, status, `${contentType}: ${response.body}`);
    }
    const unsupported = await send('POST', '/projects', 'application/xml', '<a/>', ROOT_TOKEN);
    assert.deepEqual(JSON.parse(unsupported.body), { message: '415 Unsupported Media Type' });
  });
});
