// Bundles the ESM packages whose many small files dominate a process's start-up into one file
// each (deps/*.js, gitignored): typebox (~370 files), kysely (~260) and execa (~110) cost a
// process about 0.6 s of CPU to load file by file, and about 0.1 s bundled. Sources import
// them as `#deps/<name>` (package.json "imports"); deps/<name>.d.ts re-exports the package's
// own types. Skipped when the bundles are newer than package-lock.json and this script and
// every chunk they import is there.
// Usage: node scripts/bundle-deps.mjs [--force]
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'deps');
/** Output name → the module it bundles. */
const PURE_ESM = { kysely: 'kysely', typebox: 'typebox', 'typebox-value': 'typebox/value' };
// execa requires CommonJS packages (cross-spawn): its bundle gets a `require` of its own.
const WITH_REQUIRE = { execa: 'execa' };
const outputs = [...Object.keys(PURE_ESM), ...Object.keys(WITH_REQUIRE)].map((name) => path.join(out, `${name}.js`));

/** Fresh bundles whose shared chunks are all there (a copied deps/ may lack chunks/). */
function upToDate() {
  const newest = Math.max(...['package-lock.json', 'scripts/bundle-deps.mjs'].map((file) => statSync(path.join(root, file)).mtimeMs));
  return outputs.every((file) => existsSync(file) && statSync(file).mtimeMs >= newest && chunksOf(file).every((chunk) => existsSync(chunk)));
}

function chunksOf(file) {
  return [...readFileSync(file, 'utf8').matchAll(/from\s*["'](\.\/chunks\/[^"']+)["']/g)].map((match) => path.join(out, match[1]));
}

/** Entry points that re-export a package, without files of their own. */
function reexports(modules) {
  return {
    name: 'reexports',
    setup(builder) {
      builder.onResolve({ filter: /^reexport:/ }, (args) => ({ path: args.path.slice('reexport:'.length), namespace: 'reexport' }));
      builder.onLoad({ filter: /.*/, namespace: 'reexport' }, (args) => ({ contents: `export * from '${modules[args.path] ?? args.path}';`, resolveDir: root }));
    },
  };
}

async function bundle(modules, extra) {
  await build({
    entryPoints: Object.fromEntries(Object.keys(modules).map((name) => [name, `reexport:${name}`])),
    plugins: [reexports(modules)],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: out,
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'warning',
    legalComments: 'inline',
    ...extra,
  });
}

if (process.argv.includes('--force') || !upToDate()) {
  rmSync(path.join(out, 'chunks'), { recursive: true, force: true });
  await bundle(PURE_ESM, {});
  await bundle(WITH_REQUIRE, {
    banner: { js: "import { createRequire as gantryCreateRequire } from 'node:module'; const require = gantryCreateRequire(import.meta.url);" },
  });
}
