import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import { gantryPlugin } from '../../src/coordinator/app.ts';
import { testDatabase } from '../helpers/database.ts';

const run = promisify(execFile);
const TOKEN = 'plugin-root-token-0123456789';

describe('the coordinator as a fastify plugin under a prefix', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-plugin-'));
  let host: FastifyInstance;
  let base: string;
  let database: Awaited<ReturnType<typeof testDatabase>>;
  const createdTokens: string[] = [];

  before(async () => {
    database = await testDatabase();
    host = Fastify({ routerOptions: { maxParamLength: 2048 } });
    host.setErrorHandler((_error, _request, reply) => reply.code(418).send({ host: 'error handler' }));
    host.get('/', async () => 'my site');
    host.get('/broken', async () => {
      throw new Error('host failure');
    });
    await host.register(gantryPlugin, {
      prefix: '/ci',
      dataDir,
      databaseUrl: database.url,
      rootToken: TOKEN,
      externalUrl: 'http://gantry.example/ci',
      onRootTokenCreated: (token) => createdTokens.push(token),
    });
    base = await host.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await host.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const api = (url: string, init: RequestInit = {}) =>
    fetch(`${base}/ci/api/v4${url}`, { ...init, headers: { 'PRIVATE-TOKEN': TOKEN, 'content-type': 'application/json', ...(init.headers ?? {}) } });

  it('tells the host root token once, and serves the API under the prefix', async () => {
    assert.deepEqual(createdTokens, [TOKEN]);
    const user = await api('/user');
    assert.equal(user.status, 200);
    assert.equal(((await user.json()) as { username: string }).username, 'root');
  });

  it('leaves the host alone: its routes, its error handler, its 404', async () => {
    assert.equal(await (await fetch(`${base}/`)).text(), 'my site');
    const broken = await fetch(`${base}/broken`);
    assert.deepEqual([broken.status, await broken.json()], [418, { host: 'error handler' }]);
    const unknown = await fetch(`${base}/not-ours`);
    assert.equal(((await unknown.json()) as { message?: string }).message, 'Route GET:/not-ours not found');
    const inside = await api('/no-such-route');
    assert.deepEqual([inside.status, await inside.json()], [404, { error: '404 Not Found' }]);
  });

  it("parses GitLab's query syntax itself and builds links with the prefix", async () => {
    for (const name of ['alpha', 'beta', 'gamma']) {
      assert.equal((await api('/groups', { method: 'POST', body: JSON.stringify({ name, path: name }) })).status, 201);
    }
    const alpha = (await (await api('/groups/alpha')).json()) as { id: number };
    const listed = await api(`/groups?skip_groups[]=${alpha.id}&per_page=1`);
    const names = ((await listed.json()) as Array<{ path: string }>).map((group) => group.path);
    assert.equal(names.includes('alpha'), false);
    assert.equal(listed.headers.get('x-total'), '2');
    assert.match(listed.headers.get('link') ?? '', /<http:\/\/127\.0\.0\.1:\d+\/ci\/api\/v4\/groups\?[^>]*page=2/);
    // fetch may not set Host: ask as a client of the external name would, through node:http.
    const viaExternalHost = await new Promise<string>((resolve, reject) => {
      const url = new URL(`${base}/ci/api/v4/groups?per_page=1`);
      get({ host: url.hostname, port: url.port, path: url.pathname + url.search, headers: { 'PRIVATE-TOKEN': TOKEN, host: 'gantry.example' } }, (response) => {
        response.resume();
        resolve(String(response.headers.link ?? ''));
      }).on('error', reject);
    });
    assert.match(viaExternalHost, /<http:\/\/gantry\.example\/ci\/api\/v4\/groups\?[^>]*page=2/);
  });

  it('serves git over HTTP under the prefix: push, clone, and the .git redirect', async () => {
    const created = await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'tool', initialize_with_readme: true }) });
    const project = (await created.json()) as { http_url_to_repo: string };
    assert.equal(project.http_url_to_repo, 'http://gantry.example/ci/root/tool.git');
    const work = mkdtempSync(path.join(tmpdir(), 'gantry-plugin-clone-'));
    try {
      const remote = `${base.replace('http://', `http://root:${TOKEN}@`)}/ci/root/tool.git`;
      await run('git', ['clone', '--quiet', remote, path.join(work, 'tool')]);
      assert.equal(readFileSync(path.join(work, 'tool', 'README.md'), 'utf8'), '# tool\n');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    const redirect = await fetch(`${base}/ci/root/tool/info/refs?service=git-upload-pack`, { redirect: 'manual' });
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.get('location'), '/ci/root/tool.git/info/refs?service=git-upload-pack');
  });
});
