import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

type Json = Record<string, unknown>;

describe('release events', () => {
  let gantry: TestCoordinator;
  let target: HookReceiver;
  let projectId: number;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50, hooks: { retryBaseMs: 100 } } } });
    assert.equal((await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } })).status, 200);
    target = await hookReceiver();
    const project = await gantry.api('POST', '/projects', { body: { name: 'released', initialize_with_readme: true } });
    assert.equal(project.status, 201, project.text);
    projectId = Number(project.json.id);
  });
  after(async () => {
    await target.close();
    await gantry.close();
  });

  it("sends GitLab's Release Hook on create, update and delete to hooks with releases_events only", async () => {
    const subscribed = await gantry.api('POST', `/projects/${projectId}/hooks`, { body: { url: `${target.base}/releases`, push_events: false, releases_events: true } });
    assert.equal(subscribed.status, 201, subscribed.text);
    const other = await gantry.api('POST', `/projects/${projectId}/hooks`, { body: { url: `${target.base}/pushes` } });
    assert.equal(other.status, 201, other.text);
    const created = await gantry.api('POST', `/projects/${projectId}/releases`, {
      body: { tag_name: 'v1.0', ref: 'main', name: 'First', description: 'Notes', assets: { links: [{ name: 'bin', url: 'https://downloads.example.com/bin' }] } },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal((await gantry.api('PUT', `/projects/${projectId}/releases/v1.0`, { body: { name: 'First, renamed' } })).status, 200);
    assert.equal((await gantry.api('DELETE', `/projects/${projectId}/releases/v1.0`)).status, 200);
    const releases = () => target.requests.filter((request) => request.url === '/releases');
    await waitUntil(() => releases().length >= 3, 'three release events');
    assert.deepEqual(releases().map((request) => [request.headers['x-gitlab-event'], request.body.object_kind, request.body.action, request.body.name]), [
      ['Release Hook', 'release', 'create', 'First'],
      ['Release Hook', 'release', 'update', 'First, renamed'],
      ['Release Hook', 'release', 'delete', 'First, renamed'],
    ]);
    const first = releases()[0]!.body;
    assert.deepEqual([first.tag, first.description, (first.project as Json).id, String(first.url).endsWith('/root/released/-/releases/v1.0')], ['v1.0', 'Notes', projectId, true]);
    const assets = first.assets as { count: number; links: Json[]; sources: Json[] };
    assert.deepEqual([assets.count, assets.links.map((link) => link.name), assets.sources.map((source) => source.format)], [5, ['bin'], ['zip', 'tar.gz', 'tar.bz2', 'tar']]);
    const head = (await gantry.api('GET', `/projects/${projectId}/repository/branches/main`)).json.commit as Json;
    assert.equal((first.commit as Json).id, head.id);
    // The push-only hook heard the tag's creation as nothing (no tag_push_events) and no release.
    assert.ok(!target.requests.some((request) => request.url === '/pushes' && request.headers['x-gitlab-event'] === 'Release Hook'));
    const logs = await gantry.api('GET', `/projects/${projectId}/hooks/${String(subscribed.json.id)}/events`);
    assert.deepEqual(logs.list.map((log) => log.trigger), ['release_hooks', 'release_hooks', 'release_hooks']);
  });
});
