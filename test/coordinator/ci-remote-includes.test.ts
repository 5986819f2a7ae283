/**
 * `include:remote` through the coordinator: fetched from a real HTTP server, refused on a local
 * address until the instance allows local requests, GitLab's errors for what cannot be had.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const SHARED = 'shared-job:\n  script: echo shared\n';

describe('include:remote', () => {
  let gantry: TestCoordinator;
  let server: Server;
  let base = '';
  let projectId = 0;
  const requested: string[] = [];

  before(async () => {
    server = createServer((request, response) => {
      requested.push(request.url ?? '');
      if (request.url === '/shared.yml') response.end(SHARED);
      else if (request.url === '/moved.yml') response.writeHead(301, { location: '/shared.yml' }).end();
      else if (request.url === '/twice.yml') response.writeHead(302, { location: `${base}/moved.yml` }).end();
      else if (request.url?.startsWith('/loop/')) response.writeHead(307, { location: `/loop/${Number(request.url.slice(6)) + 1}` }).end();
      else if (request.url === '/to-ftp.yml') response.writeHead(302, { location: 'ftp://example.com/ci.yml' }).end();
      else response.writeHead(404).end('not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    gantry = await startTestCoordinator();
    const created = await gantry.api('POST', '/projects', { body: { name: 'remote-includes', initialize_with_readme: true } });
    assert.equal(created.status, 201, created.text);
    projectId = created.json.id as number;
  });
  after(async () => {
    await gantry.close();
    await new Promise((resolve) => server.close(resolve));
  });

  const lint = async (content: string) => (await gantry.api('POST', `/projects/${projectId}/ci/lint`, { body: { content } })).json;
  const allowLocal = async (allowed: boolean) => {
    const answer = await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: allowed } });
    assert.equal(answer.status, 200, answer.text);
  };

  it('refuses a local address while the instance does not allow local requests, and asks nothing of it', async () => {
    const before = requested.length;
    const linted = await lint(`include: ${base}/shared.yml\nown:\n  script: echo own\n`);
    assert.equal(linted.valid, false);
    assert.deepEqual(linted.errors, ['Remote file could not be fetched because URL is blocked: Requests to the local network are not allowed!']);
    assert.equal(requested.length, before);
  });

  it('includes the file once local requests are allowed, in lint and in a pipeline', async () => {
    await allowLocal(true);
    try {
      const linted = await lint(`include:\n  - remote: ${base}/shared.yml\nown:\n  script: echo own\n`);
      assert.equal(linted.valid, true, JSON.stringify(linted.errors));
      assert.match(linted.merged_yaml as string, /shared-job:/);
      const main = (await gantry.api('GET', `/projects/${projectId}/repository/branches/main`)).json as { commit: { id: string } };
      assert.deepEqual(linted.includes, [{
        type: 'remote', location: `${base}/shared.yml`, blob: null, raw: `${base}/shared.yml`, extra: {}, context_project: 'root/remote-includes', context_sha: main.commit.id,
      }]);

      const commit = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
        body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: `include: ${base}/shared.yml\nown:\n  script: echo own\n` }] },
      });
      assert.equal(commit.status, 201, commit.text);
      const pipeline = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main' } });
      assert.equal(pipeline.status, 201, pipeline.text);
      const jobs = await gantry.api('GET', `/projects/${projectId}/pipelines/${pipeline.json.id}/jobs`);
      assert.deepEqual(jobs.list.map((job) => job.name).sort(), ['own', 'shared-job']);
    } finally {
      await allowLocal(false);
    }
  });

  it('follows redirects as GitLab does, five at most, to http or https only', async () => {
    await allowLocal(true);
    try {
      for (const file of ['moved.yml', 'twice.yml']) {
        const linted = await lint(`include: ${base}/${file}\nown:\n  script: echo own\n`);
        assert.equal(linted.valid, true, JSON.stringify(linted.errors));
        assert.match(linted.merged_yaml as string, /shared-job:/);
      }
      const before = requested.length;
      assert.deepEqual((await lint(`include: ${base}/loop/0\n`)).errors, [`Remote file \`${base}/loop/0\` could not be fetched because of HTTP error!`]);
      // Only the loop's requests: the push pipeline of the commit the test before made compiles in the background and may fetch shared.yml meanwhile.
      const loop = requested.slice(before).filter((url) => url.startsWith('/loop/'));
      assert.deepEqual(loop, ['/loop/0', '/loop/1', '/loop/2', '/loop/3', '/loop/4', '/loop/5'], 'the first request and five redirects');
      assert.deepEqual((await lint(`include: ${base}/to-ftp.yml\n`)).errors, [`Remote file \`${base}/to-ftp.yml\` could not be fetched because of HTTP error!`]);
    } finally {
      await allowLocal(false);
    }
  });

  it('checks the address a redirect points to as the first one', async () => {
    const fetched = async (send: (url: string) => { status: number; location?: string; body?: string }) => {
      const { RemoteIncludes } = await import('../../src/coordinator/services/ci/pipelines/remote-includes.ts');
      const { sendOutbound } = await import('../../src/coordinator/services/outbound/outbound-http.ts');
      const reader = new RemoteIncludes({
        settings: { values: async () => ({ allow_local_requests_from_web_hooks_and_services: false }) as never },
        // A public name that answers a redirect to this machine; the real client then checks that address.
        send: async (request) => {
          if (request.url.startsWith('http://public.example/')) {
            const answer = send(request.url);
            return { status: answer.status, headers: answer.location ? { location: answer.location } : {}, body: answer.body ?? '', truncated: false };
          }
          return sendOutbound(request);
        },
      }).forCompile();
      return reader('http://public.example/ci.yml');
    };
    assert.deepEqual(await fetched(() => ({ status: 302, location: `${base}/shared.yml` })), { status: 'refused', reason: 'URL is blocked: Requests to the local network are not allowed' });
    assert.deepEqual(await fetched(() => ({ status: 200, body: SHARED })), { status: 'found', content: SHARED });
    assert.deepEqual(await fetched(() => ({ status: 304 })), { status: 'found', content: '' }, 'an answer under 400 that is no redirect is the file, as GitLab reads it');
  });

  it("answers GitLab's errors for a missing file and a closed port", async () => {
    await allowLocal(true);
    try {
      assert.deepEqual((await lint(`include: ${base}/missing.yml\n`)).errors, [`Remote file \`${base}/missing.yml\` could not be fetched because of HTTP code \`404\` error!`]);
      const closed = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as AddressInfo;
          probe.close(() => resolve(port));
        });
      });
      const url = `http://127.0.0.1:${closed}/ci.yml`;
      assert.deepEqual((await lint(`include: ${url}\n`)).errors, [`Remote file \`${url}\` could not be fetched because of a socket error!`]);
    } finally {
      await allowLocal(false);
    }
  });
});
