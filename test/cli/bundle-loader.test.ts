/**
 * The loader of `runner exec`'s CommonJS bundle with its V8 code cache, on small bundles of its
 * own and this process's V8: the cache is used when it was made for the bundle, never handed to
 * V8 for another bundle, and V8's refusal of a damaged one leaves the source compiled as
 * without a cache.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { BUNDLE_ID_PREFIX, bundleIdOf, loadBundle } from '../../src/cli/bundle-loader.ts';

interface Answers {
  answer(): number;
  strict: boolean;
  here: string;
  required: string;
}

const SOURCE = [
  'function answer() { return 6 * 7; }',
  'exports.answer = answer;',
  'exports.strict = (function () { return this === undefined; })();',
  'exports.here = __filename;',
  "exports.required = require('node:path').basename(__dirname);",
].join('\n');

describe('the bundle loader', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gantry-bundle-loader-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const bundle = path.join(dir, 'bundle.cjs');
  const cache = path.join(dir, 'bundle.cache');

  const writeBundle = (source: string, id: string | null) => writeFileSync(bundle, id === null ? source : `${source}\n${BUNDLE_ID_PREFIX}${id}\n`);

  it('reads the id from the last line of a bundle', () => {
    assert.equal(bundleIdOf(`x = 1;\n${BUNDLE_ID_PREFIX}abc123\n`), 'abc123');
    assert.equal(bundleIdOf('x = 1;\n'), null);
  });

  it('runs the bundle strict, with its own require, __filename and exports, without a cache', () => {
    writeBundle(SOURCE, 'first');
    rmSync(cache, { force: true });
    const loaded = loadBundle<Answers>(bundle, cache);
    assert.equal(loaded.codeCache, 'none');
    assert.equal(loaded.exports.answer(), 42);
    assert.equal(loaded.exports.strict, true);
    assert.equal(loaded.exports.here, bundle);
    assert.equal(loaded.exports.required, path.basename(dir));
  });

  it('uses the cache made for the bundle, with the code compiled after loading', () => {
    writeBundle(SOURCE, 'first');
    const warm = loadBundle<Answers>(bundle, cache);
    warm.exports.answer();
    writeFileSync(cache, warm.createCodeCache());
    const loaded = loadBundle<Answers>(bundle, cache);
    assert.equal(loaded.codeCache, 'used');
    assert.equal(loaded.exports.answer(), 42);
  });

  it('does not hand V8 a cache made for another bundle, even of the same length', () => {
    writeBundle(SOURCE, 'first');
    writeFileSync(cache, loadBundle<Answers>(bundle, cache).createCodeCache());
    // V8 would take it (it checks the length) and run the first bundle's code: 42.
    writeBundle(SOURCE.replace('6 * 7', '6 * 8'), 'other');
    const loaded = loadBundle<Answers>(bundle, cache);
    assert.equal(loaded.codeCache, 'none');
    assert.equal(loaded.exports.answer(), 48);
  });

  it('does not use a cache for a bundle without an id', () => {
    writeBundle(SOURCE, 'first');
    writeFileSync(cache, loadBundle<Answers>(bundle, cache).createCodeCache());
    writeBundle(SOURCE, null);
    assert.equal(loadBundle<Answers>(bundle, cache).codeCache, 'none');
  });

  it('loads without a cache it cannot read', () => {
    writeBundle(SOURCE, 'first');
    rmSync(cache, { force: true });
    mkdirSync(cache);
    try {
      const loaded = loadBundle<Answers>(bundle, cache);
      assert.equal(loaded.codeCache, 'none');
      assert.equal(loaded.exports.answer(), 42);
    } finally {
      rmSync(cache, { recursive: true });
    }
  });

  it('compiles the source when V8 refuses the cache (another V8, other flags, damaged)', () => {
    // A source this process has not compiled yet: V8 would take a compiled one from its own memory.
    writeBundle(`${SOURCE}\nexports.damaged = true;`, 'first');
    writeFileSync(cache, Buffer.concat([Buffer.from('first\n'), Buffer.alloc(256, 7)]));
    const loaded = loadBundle<Answers>(bundle, cache);
    assert.equal(loaded.codeCache, 'rejected');
    assert.equal(loaded.exports.answer(), 42);
  });
});
