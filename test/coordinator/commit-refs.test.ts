import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeProjectWithRepository } from './groups-fixtures.ts';

describe('GET /projects/:id/repository/commits/:sha/refs', () => {
  let gantry: TestCoordinator;
  let base: string;
  let first: string;
  let second: string;

  before(async () => {
    gantry = await startTestCoordinator();
    const project = await makeProjectWithRepository(gantry, 1, 'refs', { withReadme: true });
    base = `/projects/${project.id}/repository`;
    first = (await gantry.api('GET', `${base}/commits/main`)).json.id as string;
    assert.equal((await gantry.api('POST', `${base}/branches`, { body: { branch: 'release/1.x', ref: 'main' } })).status, 201);
    assert.equal((await gantry.api('POST', `${base}/tags`, { body: { tag_name: 'v1.0', ref: 'main', message: 'first release' } })).status, 201);
    const commit = await gantry.api('POST', `${base}/commits`, {
      body: { branch: 'main', commit_message: 'more', actions: [{ action: 'create', file_path: 'more.txt', content: 'more' }] },
    });
    second = commit.json.id as string;
  });
  after(() => gantry.close());

  it('lists every branch and tag containing the commit (type=all by default)', async () => {
    const refs = await gantry.api('GET', `${base}/commits/${first}/refs`);
    assert.equal(refs.status, 200);
    assert.deepEqual(refs.list, [
      { type: 'branch', name: 'main' },
      { type: 'branch', name: 'release/1.x' },
      { type: 'tag', name: 'v1.0' },
    ]);
    assert.equal(refs.headers['x-total'], '3');
  });

  it('filters by type and leaves out refs that do not contain the commit', async () => {
    assert.deepEqual((await gantry.api('GET', `${base}/commits/${first}/refs?type=tag`)).list, [{ type: 'tag', name: 'v1.0' }]);
    assert.deepEqual((await gantry.api('GET', `${base}/commits/${second}/refs?type=all`)).list, [{ type: 'branch', name: 'main' }]);
    assert.deepEqual((await gantry.api('GET', `${base}/commits/${second}/refs?type=tag`)).list, []);
  });

  it('answers 400 for an unknown type and 404 for an unknown commit', async () => {
    assert.equal((await gantry.api('GET', `${base}/commits/${first}/refs?type=note`)).status, 400);
    const unknown = await gantry.api('GET', `${base}/commits/${'0'.repeat(40)}/refs`);
    assert.deepEqual([unknown.status, unknown.json], [404, { message: '404 Commit Not Found' }]);
  });
});
