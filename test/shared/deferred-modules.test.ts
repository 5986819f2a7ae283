import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { deferLoading, deferredModulePath } from '../../src/shared/deferred-modules.ts';

/** A package `host` whose main requires `./heavy.js` (and `./heavy-fn.js`, which exports a function) at load time and uses them only on demand. */
function hostPackage(): { root: string; main: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'gantry-deferred-'));
  const dir = path.join(root, 'node_modules', 'host');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'host', main: 'index.js' }));
  writeFileSync(
    path.join(dir, 'index.js'),
    "const heavy = require('./heavy.js');\nconst heavyFn = require('./heavy-fn.js');\nexports.light = () => 'light';\nexports.useHeavy = () => heavy.run();\nexports.callHeavy = (x) => heavyFn(x);\n",
  );
  writeFileSync(path.join(dir, 'heavy.js'), "globalThis.heavyLoads = (globalThis.heavyLoads ?? 0) + 1;\nexports.run = () => 'heavy';\n");
  writeFileSync(path.join(dir, 'heavy-fn.js'), "globalThis.heavyFnLoads = (globalThis.heavyFnLoads ?? 0) + 1;\nmodule.exports = (x) => `heavy ${x}`;\n");
  return { root, main: path.join(dir, 'index.js') };
}

const loads = () => globalThis as { heavyLoads?: number; heavyFnLoads?: number };

test('a deferred module loads on its first use, once, and then is what require returns', () => {
  const { root, main } = hostPackage();
  try {
    const heavy = { via: [main], file: 'heavy.js' };
    const heavyFn = { via: [main], file: 'heavy-fn.js' };
    assert.equal(deferredModulePath(heavy), path.join(path.dirname(main), 'heavy.js'));
    deferLoading([heavy, heavyFn]);
    const requireHere = createRequire(import.meta.url);
    const host = requireHere(main) as { light: () => string; useHeavy: () => string; callHeavy: (x: number) => string };
    assert.equal(host.light(), 'light');
    assert.equal(loads().heavyLoads, undefined, 'not loaded with its requirer');
    assert.equal(loads().heavyFnLoads, undefined);
    assert.equal(host.useHeavy(), 'heavy');
    assert.equal(host.useHeavy(), 'heavy');
    assert.equal(loads().heavyLoads, 1, 'loaded on first use, once');
    assert.equal(host.callHeavy(7), 'heavy 7', 'a module that exports a function can be called through its stand-in');
    assert.equal(loads().heavyFnLoads, 1);
    assert.equal((requireHere(path.join(path.dirname(main), 'heavy.js')) as { run: () => string }).run(), 'heavy');
    assert.equal(loads().heavyLoads, 1, 'a later require gets the real module, not a second load');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a module that cannot be resolved or does not exist is left alone', () => {
  assert.equal(deferredModulePath({ via: ['no-such-package-anywhere'] }), undefined);
  assert.doesNotThrow(() => deferLoading([{ via: ['no-such-package-anywhere'] }, { via: ['dockerode'], file: 'no-such-file.js' }]));
  assert.equal(createRequire(import.meta.url).cache[deferredModulePath({ via: ['dockerode'], file: 'no-such-file.js' })!], undefined);
});
