import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

describe('release asset links', () => {
  let gantry: TestCoordinator;
  let developer: TestUser;
  let reporter: TestUser;
  let releases: string;

  before(async () => {
    gantry = await startTestCoordinator({ externalUrl: 'http://gantry.test' });
    developer = await makeUser(gantry, 'dev');
    reporter = await makeUser(gantry, 'rep');
    const group = await makeGroup(gantry, 'acme');
    const project = await makeProjectWithRepository(gantry, group.id, 'tool', { withReadme: true });
    await addMember(gantry, { type: 'project', id: project.id }, developer.id, 30);
    await addMember(gantry, { type: 'project', id: project.id }, reporter.id, 20);
    releases = `/projects/${project.id}/releases`;
  });
  after(() => gantry.close());

  it('creates a release with links, shown under assets', async () => {
    const created = await gantry.api('POST', releases, {
      token: developer.token,
      body: {
        tag_name: 'v2.0', ref: 'main',
        assets: { links: [
          { name: 'Linux binary', url: 'https://downloads.example.com/tool-linux', filepath: '/bin/tool-linux', link_type: 'package' },
          { name: 'Runbook', url: 'http://gantry.test/acme/tool/-/wikis/runbook', link_type: 'runbook' },
        ] },
      },
    });
    assert.equal(created.status, 201, created.text);
    const assets = created.json.assets as { count: number; links: Array<Record<string, unknown>> };
    assert.equal(assets.count, 6, 'four archive sources and two links');
    assert.deepEqual(assets.links.map(({ id: _id, ...rest }) => rest), [
      { name: 'Linux binary', url: 'https://downloads.example.com/tool-linux', direct_asset_url: 'http://gantry.test/acme/tool/-/releases/v2.0/downloads/bin/tool-linux', external: true, link_type: 'package' },
      { name: 'Runbook', url: 'http://gantry.test/acme/tool/-/wikis/runbook', direct_asset_url: 'http://gantry.test/acme/tool/-/wikis/runbook', external: false, link_type: 'runbook' },
    ]);
  });

  it('lists, gets, adds, edits and deletes links', async () => {
    const links = `${releases}/v2.0/assets/links`;
    const listed = await gantry.api('GET', links, { token: reporter.token });
    assert.deepEqual(listed.list.map((link) => link.name), ['Linux binary', 'Runbook']);
    const added = await gantry.api('POST', links, { token: developer.token, body: { name: 'Checksums', url: 'https://downloads.example.com/SHA256SUMS' } });
    assert.equal(added.status, 201);
    assert.equal(added.json.link_type, 'other');
    const id = Number(added.json.id);
    assert.equal((await gantry.api('GET', `${links}/${id}`, { token: reporter.token })).json.name, 'Checksums');
    const edited = await gantry.api('PUT', `${links}/${id}`, { token: developer.token, body: { name: 'Sums', filepath: '/SHA256SUMS' } });
    assert.equal(edited.json.name, 'Sums');
    assert.equal(edited.json.direct_asset_url, 'http://gantry.test/acme/tool/-/releases/v2.0/downloads/SHA256SUMS');
    const deleted = await gantry.api('DELETE', `${links}/${id}`, { token: developer.token });
    assert.deepEqual([deleted.status, deleted.json.name], [200, 'Sums']);
    assert.equal((await gantry.api('GET', `${links}/${id}`)).status, 404);
    assert.equal(((await gantry.api('GET', `${releases}/v2.0`)).json.assets as { count: number }).count, 6);
  });

  it('validates links and applies permissions', async () => {
    const links = `${releases}/v2.0/assets/links`;
    const post = (body: Record<string, unknown>, token = developer.token) => gantry.api('POST', links, { token, body });
    assert.deepEqual((await post({ url: 'https://x.example.com' })).json, { error: 'name is missing' });
    assert.deepEqual((await post({ name: 'x' })).json, { error: 'url is missing' });
    assert.deepEqual((await post({ name: 'Runbook', url: 'https://other.example.com' })).json, { message: { name: ['has already been taken'] } });
    assert.deepEqual((await post({ name: 'x', url: 'https://x.example.com', filepath: 'no-slash' })).json, { message: { filepath: ['is in an invalid format'] } });
    assert.deepEqual((await post({ name: 'x', url: 'https://x.example.com', link_type: 'movie' })).json, { error: 'link_type does not have a valid value' });
    assert.equal((await post({ name: 'x', url: 'https://x.example.com' }, reporter.token)).status, 403);
    assert.equal((await gantry.api('GET', `${releases}/v9/assets/links`)).status, 404);
    assert.equal((await gantry.api('GET', `${links}/abc`)).status, 400);
  });

  it('serves the advertised source archives and redirects asset downloads to their links', async () => {
    const release = (await gantry.api('GET', `${releases}/v2.0`)).json;
    const sources = (release.assets as { sources: Array<{ format: string; url: string }>; links: Array<{ direct_asset_url: string; url: string }> });
    const web = (url: string, token: string | null = developer.token) =>
      gantry.coordinator.app.inject({ method: 'GET', url: url.replace('http://gantry.test', ''), headers: token ? { 'private-token': token } : {} });
    for (const source of sources.sources) {
      const archive = await web(source.url);
      assert.equal(archive.statusCode, 200, `${source.format}: ${archive.body.slice(0, 200)}`);
      assert.match(String(archive.headers['content-disposition']), /attachment/);
    }
    const gzip = await web(sources.sources.find((source) => source.format === 'tar.gz')!.url);
    assert.deepEqual([...gzip.rawPayload.subarray(0, 2)], [0x1f, 0x8b]);
    assert.equal((await web(sources.sources[0]!.url, null)).statusCode, 404, 'a private project hides its archives from anonymous callers');
    const asset = sources.links.find((link) => link.direct_asset_url !== link.url)!;
    const redirect = await web(asset.direct_asset_url);
    assert.equal(redirect.statusCode, 302);
    assert.equal(redirect.headers.location, asset.url);
    assert.equal((await web('http://gantry.test/acme/tool/-/releases/v2.0/downloads/nothing/here')).statusCode, 404);
    assert.equal((await web('http://gantry.test/acme/tool/-/archive/v2.0/tool-v2.0.rar')).statusCode, 404);
  });
});
