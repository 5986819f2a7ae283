import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

/**
 * The endpoint inventory (spec/endpoints.tsv) against the routes: every row must be routed,
 * i.e. answer something other than the unknown-route body `{"error":"404 Not Found"}` (a
 * resource 404 such as `404 Project Not Found` counts as routed). CI checks the repository
 * out with shared/ beside it; the copy under test/fixtures/spec/ is used when it is absent.
 */
const repoRoot = path.resolve(import.meta.dirname, '../..');
const sharedInventory = path.resolve(repoRoot, '../shared/spec/endpoints.tsv');
const fixtureInventory = path.resolve(repoRoot, 'test/fixtures/spec/endpoints.tsv');

/**
 * Areas of later issues, not built yet. Each prefix's rows must still be unrouted: when an
 * area lands, its test here fails until its entry is removed, so this list only shrinks.
 */
const PENDING: ReadonlyArray<{ prefix: string; area: string; exact?: boolean }> = [];

/** Values for path parameters: ids that do not exist (so DELETE rows harm nothing), plausible names. */
const SAMPLE_VALUES: Record<string, string> = {
  key: 'sample_key',
  subscribable_type: 'issues',
  file_path: 'README.md',
  artifact_path: 'path/to/file.txt',
  sha: 'master',
  ref_name: 'master',
  branch: 'master',
  name: 'master',
  tag_name: 'v1.0.0',
};
const SAMPLE_ID = '999999';

interface InventoryRow {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  source: string;
}

function readInventory(file: string): InventoryRow[] {
  const [header, ...lines] = readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '');
  assert.equal(header, 'method\tpath\tsource');
  return lines.map((line) => {
    const [method, rowPath, source] = line.split('\t');
    assert.ok(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method ?? ''), `bad method in: ${line}`);
    assert.ok(rowPath?.startsWith('/'), `bad path in: ${line}`);
    return { method: method as InventoryRow['method'], path: rowPath, source: source ?? '' };
  });
}

function pendingArea(rowPath: string): string | undefined {
  return PENDING.find(({ prefix, exact }) => rowPath === prefix || (!exact && rowPath.startsWith(`${prefix}/`)))?.area;
}

function concretePath(template: string): string {
  return template.replace(/[:*]([a-z_]+)/g, (_match, name: string) => SAMPLE_VALUES[name] ?? SAMPLE_ID);
}

const inventoryFile = existsSync(sharedInventory) ? sharedInventory : fixtureInventory;
const rows = readInventory(inventoryFile);

describe('endpoint inventory', () => {
  let gantry: TestCoordinator;

  before(async () => {
    gantry = await startTestCoordinator();
  });
  after(() => gantry.close());

  async function isRouted(row: InventoryRow): Promise<boolean> {
    const withBody = row.method === 'POST' || row.method === 'PUT' || row.method === 'PATCH';
    const response = await gantry.api(row.method, concretePath(row.path), withBody ? { body: {} } : {});
    const unknownRoute = response.status === 404 && JSON.stringify(response.body) === JSON.stringify({ error: '404 Not Found' });
    return !unknownRoute;
  }

  it('keeps the fixture copy equal to shared/spec/endpoints.tsv', { skip: !existsSync(sharedInventory) && 'shared/ is not checked out' }, () => {
    assert.equal(readFileSync(fixtureInventory, 'utf8'), readFileSync(sharedInventory, 'utf8'), 'copy ../shared/spec/endpoints.tsv to test/fixtures/spec/');
  });

  it('lists no duplicate rows, and every pending prefix still matches a row', () => {
    const keys = rows.map((row) => `${row.method} ${row.path}`);
    assert.equal(new Set(keys).size, keys.length);
    for (const { prefix } of PENDING) {
      assert.ok(rows.some((row) => row.path === prefix || row.path.startsWith(`${prefix}/`)), `stale pending prefix ${prefix}`);
    }
  });

  it('substitutes every path parameter', () => {
    for (const row of rows) assert.doesNotMatch(concretePath(row.path), /[:*]/, row.path);
  });

  for (const row of rows) {
    const area = pendingArea(row.path);
    if (area) {
      it(`${row.method} ${row.path} is still unrouted (pending: ${area})`, async () => {
        assert.equal(await isRouted(row), false, `${row.method} ${row.path} is routed now: remove its prefix from PENDING`);
      });
    } else {
      it(`${row.method} ${row.path} is routed`, async () => {
        assert.equal(await isRouted(row), true, `${row.method} ${row.path} answers the unknown-route 404`);
      });
    }
  }
});
