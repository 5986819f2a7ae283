import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { keepOut, unreachableModulePath } from '../../src/shared/unreachable-modules.ts';

/** A package `host` whose main requires `./heavy.js` at load time and uses it only in `useHeavy()`. */
function hostPackage(): { root: string; main: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'gantry-unreachable-'));
  const dir = path.join(root, 'node_modules', 'host');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'host', main: 'index.js' }));
  writeFileSync(path.join(dir, 'index.js'), "const heavy = require('./heavy.js');\nexports.light = () => 'light';\nexports.useHeavy = () => heavy.run();\n");
  writeFileSync(path.join(dir, 'heavy.js'), "globalThis.heavyLoaded = true;\nexports.run = () => 'heavy';\n");
  return { root, main: path.join(dir, 'index.js') };
}

test('a kept-out module is never loaded, its requirer works, and a use of it throws the reason', () => {
  const { root, main } = hostPackage();
  try {
    const module = { via: [main], file: 'heavy.js', why: 'heavy is not reachable here' };
    assert.equal(unreachableModulePath(module), path.join(path.dirname(main), 'heavy.js'));
    keepOut([module]);
    const host = createRequire(import.meta.url)(main) as { light: () => string; useHeavy: () => string };
    assert.equal((globalThis as { heavyLoaded?: boolean }).heavyLoaded, undefined);
    assert.equal(host.light(), 'light');
    assert.throws(() => host.useHeavy(), /heavy is not reachable here/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a module that cannot be resolved is left alone', () => {
  assert.equal(unreachableModulePath({ via: ['no-such-package-anywhere'], why: 'x' }), undefined);
  assert.doesNotThrow(() => keepOut([{ via: ['no-such-package-anywhere'], why: 'x' }]));
});
