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

  it("answers GitLab's errors for a missing file, a redirect (not followed) and a closed port", async () => {
    await allowLocal(true);
    try {
      assert.deepEqual((await lint(`include: ${base}/missing.yml\n`)).errors, [`Remote file \`${base}/missing.yml\` could not be fetched because of HTTP code \`404\` error!`]);
      assert.deepEqual((await lint(`include: ${base}/moved.yml\n`)).errors, [`Remote file \`${base}/moved.yml\` could not be fetched because of HTTP code \`301\` error!`]);
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
