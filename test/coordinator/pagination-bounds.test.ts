import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { apiRoutes, makeWalkWorld, samplePath, type WalkWorld } from './route-walk.ts';

/** Pages far past the end of every list: 2^63, 2^53 + 1 (JavaScript's first unsafe integer) and 2^31. */
const HUGE_PAGES = ['9223372036854775808', '9007199254740993', '2147483648'];

describe('pagination past the end', () => {
  let gantry: TestCoordinator;
  let world: WalkWorld;
  /** Every GET route that answers a page (it sets X-Page), with a path that reaches a record. */
  const paginated: string[] = [];

  before(async () => {
    gantry = await startTestCoordinator();
    world = await makeWalkWorld(gantry);
    assert.equal(world.commits, 5, 'the world has five commits on main');
    for (const route of apiRoutes(gantry).filter((candidate) => candidate.method === 'GET')) {
      const path = samplePath(route.url, world);
      const first = await gantry.api('GET', `${path}${path.includes('?') ? '&' : '?'}page=1&per_page=1`);
      if (first.headers['x-page'] !== undefined) paginated.push(path);
    }
  });
  after(() => gantry.close());

  it('finds the paginated lists by their headers', () => {
    // Lists of every area: a list that lost its headers, or a walk that reached none, fails here.
    for (const list of ['/groups', '/projects', '/users', `/projects/${world.projectId}/repository/commits`, `/projects/${world.projectId}/repository/tags`, `/groups/${world.groupId}/members`, '/namespaces']) {
      assert.ok(paginated.includes(list), `${list} is not among the paginated lists: ${paginated.join(', ')}`);
    }
    assert.ok(paginated.length >= 30, `only ${paginated.length} paginated lists found`);
  });

  it('answers an empty page with the page echoed for huge page numbers, anonymous or signed in', async () => {
    const failures: string[] = [];
    for (const path of paginated) {
      for (const page of HUGE_PAGES) {
        for (const token of [undefined, null]) {
          const response = await gantry.api('GET', `${path}?page=${page}&per_page=1`, { token });
          if (token === null && (response.status === 401 || response.status === 403 || response.status === 404)) continue;
          if (response.status !== 200 || response.text !== '[]' || response.headers['x-page'] !== page || response.headers['x-next-page'] !== '') {
            failures.push(`${path} page=${page} ${token === null ? 'anonymous' : 'root'}: ${response.status} ${response.text.slice(0, 80)} X-Page=${String(response.headers['x-page'])}`);
          }
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  it('keeps the total and links the previous page exactly', async () => {
    const response = await gantry.api('GET', `/projects/${world.projectId}/repository/commits?page=9223372036854775808&per_page=2`);
    assert.equal(response.status, 200);
    assert.equal(response.headers['x-total'], '5');
    assert.equal(response.headers['x-total-pages'], '3');
    assert.equal(response.headers['x-prev-page'], '9223372036854775807');
    assert.match(String(response.headers.link), /page=9223372036854775807&per_page=2>; rel="prev"/);
  });

  it('still serves the last real page and the one after it', async () => {
    const commits = `/projects/${world.projectId}/repository/commits`;
    assert.equal((await gantry.api('GET', `${commits}?page=5&per_page=1`)).list.length, 1);
    assert.equal((await gantry.api('GET', `${commits}?page=6&per_page=1`)).text, '[]');
    assert.equal((await gantry.api('GET', '/groups?page=4&per_page=1')).text, '[]', 'three groups: walk, walk-shared and walk-spare');
  });

  it('answers 400 for page numbers that are not integers and reads huge per_page as 100', async () => {
    for (const page of ['abc', '1.5', '1e3', '0x10']) {
      const response = await gantry.api('GET', `/groups?page=${page}`, { token: null });
      assert.equal(response.status, 400, `page=${page}: ${response.text}`);
      assert.deepEqual(response.json, { error: 'page is invalid' });
    }
    const perPage = await gantry.api('GET', '/groups?per_page=9223372036854775808');
    assert.equal(perPage.status, 200);
    assert.equal(perPage.headers['x-per-page'], '100');
  });
});
