/** Runs every golden case under test/fixtures/ci. UPDATE_GOLDEN=1 rewrites expected.json. */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compilePipeline } from '../../src/ci/index.ts';
import { loadFixture, summarize } from './fixture-support.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/ci');
const cases = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

test('there are at least 80 golden cases', () => {
  assert.ok(cases.length >= 80, `only ${cases.length} cases`);
});

for (const name of cases) {
  test(`fixture ${name}`, async () => {
    const directory = path.join(root, name);
    const { text, context } = await loadFixture(directory);
    const actual = summarize(await compilePipeline(text, context));
    const expectedPath = path.join(directory, 'expected.json');
    if (process.env.UPDATE_GOLDEN === '1') {
      await writeFile(expectedPath, `${JSON.stringify(actual, null, 2)}\n`);
      return;
    }
    const expected: unknown = JSON.parse(await readFile(expectedPath, 'utf8'));
    assert.deepEqual(actual, expected);
  });
}
