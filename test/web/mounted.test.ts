import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { gantryPlugin } from '../../src/coordinator/app.ts';
import { testDatabase } from '../helpers/database.ts';

describe('web pages under a host prefix', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-web-mounted-'));
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let host: FastifyInstance;

  before(async () => {
    database = await testDatabase();
    host = Fastify();
    host.get('/', async () => 'my site');
    await host.register(gantryPlugin, { prefix: '/ci', dataDir, databaseUrl: database.url, rootToken: 'web-mounted-token-0123456789', externalUrl: 'http://host.example/ci' });
    await host.ready();
  });
  after(async () => {
    await host.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('links, posts and scopes cookies under the prefix, and leaves the host root alone', async () => {
    const page = await host.inject({ url: '/ci/users/sign_in' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<form class="sign-in" method="post" action="\/ci\/users\/sign_in">/);
    assert.match(page.body, /<link rel="stylesheet" href="\/ci\/-\/gantry\/style.css">/);
    assert.match([page.headers['set-cookie']].flat().join('\n'), /_gantry_csrf=[^;]+; Path=\/ci; HttpOnly; SameSite=Lax/);
    assert.equal((await host.inject({ url: '/ci/-/gantry/style.css' })).statusCode, 200);
    assert.equal((await host.inject({ url: '/' })).body, 'my site');
    assert.equal((await host.inject({ url: '/users/sign_in' })).statusCode, 404);
  });
});
