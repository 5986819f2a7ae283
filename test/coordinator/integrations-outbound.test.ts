import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DELIVER_TASK } from '../../src/coordinator/services/integrations/outbound-deliveries.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { gitSucceeds, startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { makeGroup } from './groups-fixtures.ts';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver on loopback; `answer` picks each status in turn ('hold': the answer waits in `held`). */
async function receiver(answer: (count: number) => number | 'hold'): Promise<{ server: Server; base: string; requests: Received[]; held: ServerResponse[] }> {
  const requests: Received[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = answer(requests.length);
      if (status === 'hold') held.push(response);
      else response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, held };
}

describe('outbound HTTP integrations deliver pushes through the task queue', () => {
  let fixture: GitHttpFixture;
  let project: ProjectRecord;
  let cwd: string;
  const git = (...args: string[]): Promise<string> => gitSucceeds(fixture, cwd, args);
  const deliveryTasks = () => fixture.gantry.coordinator.context.db.selectFrom('tasks').select(['payload', 'attempts', 'last_error', 'status']).where('kind', '=', DELIVER_TASK).execute();
  const put = async (segment: string, body: Record<string, unknown>) => {
    const saved = await fixture.gantry.api('PUT', `/projects/${project.id}/services/${segment}`, { body });
    assert.equal(saved.status, 200, saved.text);
  };
  const allowLocal = async (allowed: boolean) => {
    const changed = await fixture.gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: allowed } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.json.allow_local_requests_from_web_hooks_and_services, allowed);
  };

  before(async () => {
    fixture = await startGitHttpFixture({ coordinator: { ci: { taskPollIntervalMs: 50 } } });
    const group = await makeGroup(fixture.gantry, 'hooks');
    project = await fixture.project(group.id, 'app', { withReadme: true });
    cwd = path.join(fixture.workDir, 'app');
    const clone = await fixture.git(['clone', fixture.url('hooks/app', { user: 'root', secret: ROOT_TOKEN }), cwd]);
    assert.equal(clone.code, 0, clone.stderr);
  });
  after(() => fixture.close());

  it('answers both settings with GitLab\'s defaults: web hooks and services may not reach local addresses, system hooks may', async () => {
    const settings = await fixture.gantry.api('GET', '/application/settings');
    assert.equal(settings.json.allow_local_requests_from_web_hooks_and_services, false);
    assert.equal(settings.json.allow_local_requests_from_system_hooks, true);
  });

  it('refuses a receiver on loopback while local requests are not allowed: no request reaches it, the task records why', async () => {
    const drone = await receiver(() => 200);
    try {
      await put('drone-ci', { drone_url: drone.base, token: 'drone-secret' });
      await git('commit', '--allow-empty', '-m', 'refused');
      await git('push', 'origin', 'HEAD:main');
      await waitUntil(async () => (await deliveryTasks()).some((task) => task.attempts >= 1 && task.last_error !== null), 'the first attempt');
      const [task] = await deliveryTasks();
      assert.match(task?.last_error ?? '', /local address 127\.0\.0\.1 are not allowed/);
      assert.equal(drone.requests.length, 0);
      await fixture.gantry.coordinator.context.db.deleteFrom('tasks').where('kind', '=', DELIVER_TASK).execute();
      await fixture.gantry.api('DELETE', `/projects/${project.id}/services/drone-ci`);
    } finally {
      drone.server.close();
    }
  });

  it('POSTs the push data to the drone hook with the token in its query, and retries package-registry until its receiver recovers', async () => {
    await allowLocal(true);
    const drone = await receiver(() => 200);
    const packagist = await receiver((count) => (count <= 2 ? 500 : 200));
    try {
      await put('drone-ci', { drone_url: `${drone.base}/`, token: 'drone-secret' });
      await put('packagist', { username: 'pkg-user', token: 'pkg-secret', server: packagist.base });
      await git('commit', '--allow-empty', '-m', 'First change');
      await git('commit', '--allow-empty', '-m', 'Second change\n\nwith a body');
      const head = await git('rev-parse', 'HEAD');
      const before = await git('rev-parse', 'HEAD~2');
      await git('push', 'origin', 'HEAD:main');

      await waitUntil(() => drone.requests.length === 1, 'the drone request');
      const [hook] = drone.requests;
      assert.equal(hook?.method, 'POST');
      assert.equal(hook?.url, '/hook?owner=hooks&name=app&access_token=drone-secret');
      assert.equal(hook?.headers['x-gitlab-event'], 'Service Hook', 'GitLab sends integrations\' hooks as service hooks');
      assert.equal(hook?.headers['content-type'], 'application/json');
      const data = JSON.parse(hook?.body ?? '{}') as Record<string, unknown> & { commits: Array<{ id: string; title: string; url: string }>; project: Record<string, unknown> };
      assert.deepEqual(
        [data.object_kind, data.ref, data.before, data.after, data.checkout_sha, data.user_username, data.project_id, data.total_commits_count],
        ['push', 'refs/heads/main', before, head, head, 'root', project.id, 2],
      );
      assert.deepEqual(data.commits.map((commit) => commit.title), ['First change', 'Second change']);
      assert.equal(data.commits[1]?.url, `http://gantry.test/hooks/app/-/commit/${head}`);
      assert.equal(data.project.path_with_namespace, 'hooks/app');

      await waitUntil(async () => (await deliveryTasks()).some((task) => task.attempts === 1), 'the first failed attempt', { timeoutMs: 15_000 });
      for (const task of await deliveryTasks()) assert.doesNotMatch(task.payload, /secret/, 'no secret in a task payload');
      await waitUntil(() => packagist.requests.length === 3, 'two failures and the success', { timeoutMs: 20_000 });
      await waitUntil(async () => (await deliveryTasks()).length === 0, 'every delivery task to complete');
      assert.equal(packagist.requests[2]?.url, '/api/update-package?username=pkg-user&apiToken=pkg-secret');
      assert.equal(JSON.parse(packagist.requests[2]?.body ?? '{}').after, head);
      assert.equal(drone.requests.length, 1, 'the drone receiver was not asked again by the other integration\'s retries');
    } finally {
      drone.server.close();
      packagist.server.close();
    }
  });

  it('asks bamboo to update and build the plan on a branch push, with basic authentication, and not on a tag', async () => {
    const bamboo = await receiver(() => 200);
    try {
      await fixture.gantry.api('DELETE', `/projects/${project.id}/services/drone-ci`);
      await fixture.gantry.api('DELETE', `/projects/${project.id}/services/packagist`);
      await put('bamboo', { bamboo_url: bamboo.base, build_key: 'PLAN-KEY', username: 'ci', password: 'p w' });
      await git('commit', '--allow-empty', '-m', 'build me');
      await git('push', 'origin', 'HEAD:main');
      await waitUntil(() => bamboo.requests.length === 1, 'the bamboo request');
      assert.equal(bamboo.requests[0]?.method, 'GET');
      assert.equal(bamboo.requests[0]?.url, '/updateAndBuild.action?buildKey=PLAN-KEY&os_authType=basic');
      assert.equal(bamboo.requests[0]?.headers.authorization, `Basic ${Buffer.from('ci:p w').toString('base64')}`);
      await git('tag', 'v1');
      await git('push', 'origin', 'v1');
      await waitUntil(async () => (await deliveryTasks()).length === 0, 'no delivery pending');
      assert.equal(bamboo.requests.length, 1);
    } finally {
      bamboo.server.close();
    }
  });

  it('sends to one receiver while another has not answered yet', async () => {
    await fixture.gantry.api('DELETE', `/projects/${project.id}/services/bamboo`);
    const slow = await receiver(() => 'hold');
    const fast = await receiver(() => 200);
    try {
      await put('drone-ci', { drone_url: slow.base, token: 'slow-secret' });
      await put('packagist', { username: 'pkg-user', token: 'pkg-secret', server: fast.base });
      await git('commit', '--allow-empty', '-m', 'one slow, one fast');
      await git('push', 'origin', 'HEAD:main');
      await waitUntil(() => fast.requests.length === 1 && slow.requests.length === 1, 'both requests');
      assert.equal(slow.held.length, 1, 'the slow receiver has still not answered');
      assert.equal(slow.held[0]?.socket?.destroyed, false, 'and its request is still waiting, not given up');
      for (const response of slow.held) response.writeHead(200).end();
      await waitUntil(async () => (await deliveryTasks()).length === 0, 'both deliveries to complete');
    } finally {
      slow.server.close();
      fast.server.close();
    }
  });
});
