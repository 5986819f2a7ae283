import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { environmentSlug } from '../../src/ci/slug.ts';
import { moveJob, seedPipeline } from '../helpers/ci-pipelines.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';

describe('environments API', () => {
  let fx: CiSettingsFixture;
  let environmentId: number;
  const url = (suffix = '') => `/projects/${fx.project.id}/environments${suffix}`;

  before(async () => {
    fx = await startCiSettingsFixture();
  });
  after(() => fx.close());

  it('lets a Developer create an environment (201) with its slug, state and no deployment yet', async () => {
    const created = await fx.gantry.api('POST', url(), { body: { name: 'review/feature-1', external_url: 'https://review.example.com/x' }, token: fx.developer.token });
    assert.equal(created.status, 201, created.text);
    environmentId = Number(created.json.id);
    const { created_at: createdAt, updated_at: updatedAt, ...rest } = created.json;
    assert.deepEqual(rest, {
      id: environmentId,
      name: 'review/feature-1',
      slug: environmentSlug('review/feature-1'),
      external_url: 'https://review.example.com/x',
      state: 'available',
      tier: 'development',
      auto_stop_at: null,
      last_deployment: null,
    });
    assert.equal(rest.slug, 'review-feature-1-1q251u');
    assert.match(String(createdAt), /^\d{4}-\d\d-\d\dT/);
    assert.equal(updatedAt, createdAt);
    const plain = await fx.gantry.api('POST', url(), { form: { name: 'production' } });
    assert.deepEqual([plain.status, plain.json.slug, plain.json.external_url, plain.json.tier], [201, 'production', null, 'production'], 'the tier guessed from the name');
  });

  it('takes a tier on create and update (one of GitLab\'s five), else guesses it from the name', async () => {
    const given = await fx.gantry.api('POST', url(), { body: { name: 'preview-tier', tier: 'testing' } });
    assert.deepEqual([given.status, given.json.tier], [201, 'testing'], "given, it wins over the guess ('pre' is staging)");
    const guessed = await fx.gantry.api('POST', url(), { body: { name: 'sandbox-tier' } });
    assert.equal(guessed.json.tier, 'other');
    const bad = await fx.gantry.api('POST', url(), { body: { name: 'tier-x', tier: 'prod' } });
    assert.deepEqual([bad.status, bad.json], [400, { error: 'tier does not have a valid value' }]);
    const changed = await fx.gantry.api('PUT', url(`/${given.json.id}`), { body: { tier: 'production' } });
    assert.deepEqual([changed.status, changed.json.tier, changed.json.name], [200, 'production', 'preview-tier']);
    const renamed = await fx.gantry.api('PUT', url(`/${guessed.json.id}`), { body: { name: 'staging-tier' } });
    assert.equal(renamed.json.tier, 'other', 'a rename keeps the tier');
    for (const id of [given.json.id, guessed.json.id]) {
      assert.equal((await fx.gantry.api('POST', url(`/${id}/stop`))).status, 200);
      assert.equal((await fx.gantry.api('DELETE', url(`/${id}`))).status, 204);
    }
  });

  it('refuses bad names, duplicates, bad URLs and a given slug with 400', async () => {
    const missing = await fx.gantry.api('POST', url(), { body: {} });
    assert.deepEqual([missing.status, missing.json], [400, { error: 'name is missing' }]);
    for (const name of ['bad|name', 'emoji 🚀', 'semi;colon', 'new\nline', 'review/', '/review', '/']) {
      const refused = await fx.gantry.api('POST', url(), { body: { name } });
      const message = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";
      assert.deepEqual([refused.status, refused.json], [400, { message: { name: [message] } }], name);
    }
    const long = await fx.gantry.api('POST', url(), { body: { name: 'n'.repeat(256) } });
    assert.deepEqual(long.json, { message: { name: ['is too long (maximum is 255 characters)'] } });
    const duplicate = await fx.gantry.api('POST', url(), { body: { name: 'production' } });
    assert.deepEqual([duplicate.status, duplicate.json], [400, { message: { name: ['has already been taken'] } }]);
    for (const externalUrl of ['ftp://example.com', 'not a url', 'javascript:alert(1)', 'http://']) {
      const refused = await fx.gantry.api('POST', url(), { body: { name: 'staging', external_url: externalUrl } });
      assert.deepEqual([refused.status, refused.json], [400, { message: { external_url: ['must be a valid URL'] } }], externalUrl);
    }
    const slug = await fx.gantry.api('POST', url(), { body: { name: 'staging', slug: 'mine' } });
    assert.deepEqual([slug.status, slug.json], [400, { error: 'slug is automatically generated and cannot be changed' }]);
    assert.equal((await fx.gantry.api('GET', url('?name=staging'))).list.length, 0);
  });

  it('lists (paginated, by name, search or state) and gets one', async () => {
    const list = await fx.gantry.api('GET', url(), { token: fx.reporter.token });
    assert.deepEqual([list.status, list.headers['x-total'], list.list.map((environment) => environment.name)], [200, '2', ['review/feature-1', 'production']]);
    assert.deepEqual((await fx.gantry.api('GET', url('?name=production'))).list.map((environment) => environment.name), ['production']);
    assert.deepEqual((await fx.gantry.api('GET', url('?search=feature'))).list.map((environment) => environment.name), ['review/feature-1']);
    assert.deepEqual((await fx.gantry.api('GET', url('?per_page=1&page=2'))).list.map((environment) => environment.name), ['production']);
    assert.deepEqual((await fx.gantry.api('GET', url('?states=stopped'))).list, []);
    assert.deepEqual((await fx.gantry.api('GET', url('?states=gone'))).json, { error: 'states does not have a valid value' });
    const one = await fx.gantry.api('GET', url(`/${environmentId}`), { token: fx.reporter.token });
    assert.deepEqual([one.status, one.json.name, one.json.last_deployment], [200, 'review/feature-1', null]);
  });

  it('shows the newest successful deployment as last_deployment', async () => {
    const { deployments } = fx.gantry.coordinator.context.stores;
    const at = (minute: number) => `2024-05-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
    const deploy = (status: 'success' | 'failed', sha: string, minute: number) =>
      deployments.create({
        project_id: fx.project.id, environment_id: environmentId, job_id: null, ref: 'main', tag: false, sha, user_id: fx.developer.id,
        status, on_stop: null, created_at: at(minute), updated_at: at(minute), finished_at: at(minute),
      });
    const first = await deploy('success', 'a'.repeat(40), 1);
    await deploy('success', 'b'.repeat(40), 2);
    await deploy('failed', 'c'.repeat(40), 3);
    const one = await fx.gantry.api('GET', url(`/${environmentId}`));
    const last = one.json.last_deployment as Record<string, unknown>;
    assert.deepEqual([last.iid, last.sha, last.status, last.ref], [first.iid + 1, 'b'.repeat(40), 'success', 'main']);
    assert.equal((last.user as Record<string, unknown>).username, 'ci-developer');
    const listed = (await fx.gantry.api('GET', url())).list;
    assert.equal((listed[0]!.last_deployment as Record<string, unknown>).sha, 'b'.repeat(40));
    assert.equal(listed[1]!.last_deployment, null);
  });

  it('updates name and external_url (the slug stays); null clears the URL', async () => {
    const slug = environmentSlug('review/feature-1');
    const renamed = await fx.gantry.api('PUT', url(`/${environmentId}`), { body: { name: 'review/feature-2', external_url: 'http://review2.example.com' }, token: fx.developer.token });
    assert.deepEqual([renamed.status, renamed.json.name, renamed.json.slug, renamed.json.external_url], [200, 'review/feature-2', slug, 'http://review2.example.com']);
    const cleared = await fx.gantry.api('PUT', url(`/${environmentId}`), { body: { external_url: null } });
    assert.deepEqual([cleared.status, cleared.json.name, cleared.json.external_url], [200, 'review/feature-2', null]);
    const taken = await fx.gantry.api('PUT', url(`/${environmentId}`), { body: { name: 'production' } });
    assert.deepEqual([taken.status, taken.json], [400, { message: { name: ['has already been taken'] } }]);
    const bad = await fx.gantry.api('PUT', url(`/${environmentId}`), { body: { name: 'bad|name', external_url: 'gopher://x' } });
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.json.message as Record<string, unknown>).sort(), ['external_url', 'name']);
    const slugChange = await fx.gantry.api('PUT', url(`/${environmentId}`), { body: { slug: 'other' } });
    assert.deepEqual([slugChange.status, slugChange.json], [400, { error: 'slug is automatically generated and cannot be changed' }]);
    const same = await fx.gantry.api('PUT', url(`/${environmentId}`), { body: { name: 'review/feature-2' } });
    assert.equal(same.status, 200);
  });

  it('stops an environment (200, state stopped), and unknown or malformed ids answer 404 and 400', async () => {
    const stopped = await fx.gantry.api('POST', url(`/${environmentId}/stop`), { token: fx.developer.token });
    assert.deepEqual([stopped.status, stopped.json.state, stopped.json.name], [200, 'stopped', 'review/feature-2']);
    assert.deepEqual((await fx.gantry.api('GET', url('?states=stopped'))).list.map((environment) => environment.id), [environmentId]);
    assert.deepEqual((await fx.gantry.api('GET', url('?states=stopping'))).list, [], 'GitLab\'s third state: none is ever in it here');
    const both = await fx.gantry.api('GET', url('?name=review/feature-2&search=review'));
    assert.deepEqual([both.status, both.json], [400, { error: 'name, search cannot be used together' }]);
    assert.equal((await fx.gantry.api('POST', url(`/${environmentId}/stop`))).json.state, 'stopped');
    for (const [method, path] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/stop']] as const) {
      const missing = await fx.gantry.api(method, url(`/999999${path}`), method === 'PUT' ? { body: { name: 'x' } } : {});
      assert.deepEqual([missing.status, missing.json], [404, { message: '404 Not found' }], `${method} ${path}`);
    }
    assert.deepEqual((await fx.gantry.api('GET', url('/abc'))).json, { error: 'environment_id is invalid' });
  });

  it('follows the access rules: Reporters read, Developers write, guests are refused, strangers get 404', async () => {
    assert.equal((await fx.gantry.api('GET', url(), { token: fx.guest.token })).status, 403);
    assert.equal((await fx.gantry.api('GET', url(`/${environmentId}`), { token: fx.guest.token })).status, 403);
    for (const user of [fx.guest, fx.reporter]) {
      assert.equal((await fx.gantry.api('POST', url(), { body: { name: 'qa' }, token: user.token })).status, 403, user.username);
      assert.equal((await fx.gantry.api('PUT', url(`/${environmentId}`), { body: { name: 'qa' }, token: user.token })).status, 403, user.username);
      assert.equal((await fx.gantry.api('POST', url(`/${environmentId}/stop`), { token: user.token })).status, 403, user.username);
      assert.equal((await fx.gantry.api('DELETE', url(`/${environmentId}`), { token: user.token })).status, 403, user.username);
    }
    assert.deepEqual((await fx.gantry.api('GET', url(), { token: fx.stranger.token })).json, { message: '404 Project Not Found' });
    assert.equal((await fx.gantry.api('GET', url(), { token: null })).status, 401);
  });

  it('plays the on_stop job of the newest successful deployment when stopping, as the stopping user', async () => {
    const created = await fx.gantry.api('POST', url(), { body: { name: 'review/stoppable' }, token: fx.developer.token });
    const environment = Number(created.json.id);
    const { pipeline, jobs } = await seedPipeline(fx.gantry.coordinator, {
      projectId: fx.project.id,
      jobs: [
        { name: 'deploy_review', stage: 'deploy', environment: 'review/stoppable' },
        { name: 'stop_review', stage: 'deploy', when: 'manual', environment: 'review/stoppable' },
      ],
    });
    await moveJob(fx.gantry.coordinator, jobs.deploy_review!, 'running');
    await moveJob(fx.gantry.coordinator, jobs.deploy_review!, 'success');
    const now = new Date().toISOString();
    await fx.gantry.coordinator.context.stores.deployments.create({
      project_id: fx.project.id, environment_id: environment, job_id: jobs.deploy_review!.id, ref: 'main', tag: false, sha: pipeline.sha, user_id: fx.developer.id,
      status: 'success', on_stop: 'stop_review', created_at: now, updated_at: now, finished_at: now,
    });
    const { jobs: jobStore } = fx.gantry.coordinator.context.stores;
    assert.equal((await jobStore.findById(jobs.stop_review!.id))?.status, 'manual');

    const stopped = await fx.gantry.api('POST', url(`/${environment}/stop`), { token: fx.developer.token });
    assert.deepEqual([stopped.status, stopped.json.state], [200, 'stopped']);
    const stopJob = await jobStore.findById(jobs.stop_review!.id);
    assert.deepEqual([stopJob?.status, stopJob?.user_id], ['pending', fx.developer.id]);
    // Stopping again finds no job waiting to be played and changes nothing more.
    assert.equal((await fx.gantry.api('POST', url(`/${environment}/stop`), { token: fx.developer.token })).status, 200);
    assert.equal((await jobStore.findById(jobs.stop_review!.id))?.status, 'pending');
  });

  it('deletes a stopped environment only (403 before, as GitLab\'s policy), then it is 404', async () => {
    const available = await fx.gantry.api('POST', url(), { body: { name: 'still-up' } });
    const refused = await fx.gantry.api('DELETE', url(`/${available.json.id}`));
    assert.deepEqual([refused.status, refused.json], [403, { message: '403 Forbidden' }], 'an available environment stays, even for an administrator');
    assert.equal((await fx.gantry.api('GET', url(`/${available.json.id}`))).status, 200);
    assert.equal((await fx.gantry.api('GET', url(`/${environmentId}`))).json.state, 'stopped');
    assert.equal((await fx.gantry.api('DELETE', url(`/${environmentId}`), { token: fx.developer.token })).status, 204);
    assert.equal((await fx.gantry.api('GET', url(`/${environmentId}`))).status, 404);
    assert.equal((await fx.gantry.api('DELETE', url(`/${environmentId}`))).status, 404);
  });
});
