// Bundles `runner exec` (dist/cli/exec-main.js and everything it imports: its command line with
// yargs, the coordinator, the runner, their packages) into one CommonJS file,
// dist/cli/exec-bundle.cjs, which src/cli/runner.ts loads when it is there
// (src/cli/bundle-loader.ts) with the V8 code cache written beside it
// (dist/cli/exec-bundle.cache, scripts/exec-code-cache.mjs, after a warm run); and the compile
// worker (dist/ci-sandbox/worker.js), in place.
// Loading the ~700 modules of `runner exec` one by one costs a process about 1.4 s of CPU,
// one file about 0.7 s (docs/benchmarks.md, "runner exec"); the code cache spares the parsing
// and compiling of what a run uses. CommonJS because Node 20 compiles only a script (vm.Script),
// not an ES module, with a code cache.
// Dynamic imports stay lazy: esbuild wraps what only they reach in functions run on the first
// import(), and a package imported only there (dockerode, for `--executor docker`) is required
// then. Packages with native code or files read beside their sources stay outside, loaded from
// node_modules as usual.
// The bundle sits two levels under the package like every compiled module, and `import.meta`
// is given its url, dirname and filename, so the paths the sources resolve from
// `import.meta.url` (package.json, ci-sandbox/worker.js) still hold.
// dockerode is bundled without the parts it loads for what Gantry never asks of it (ssh2 for
// ssh:// engines, which the runner refuses; gRPC and protobuf for BuildKit sessions of image
// builds): they were most of its loading cost (about 0.1 s of CPU), and a stub stands in.
// Usage: node scripts/bundle-exec.mjs (after tsc has written dist/)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EXTERNAL = ['better-sqlite3', 'pino-pretty', 'cpu-features', '*.node'];
const UNUSED_DOCKER_PARTS = /^(ssh2|@grpc\/grpc-js|@grpc\/proto-loader|protobufjs)$/;

/** dockerode's and docker-modem's imports of UNUSED_DOCKER_PARTS resolve to a stub that throws when used. */
const withoutUnusedDockerParts = {
  name: 'without-unused-docker-parts',
  setup(plugin) {
    plugin.onResolve({ filter: UNUSED_DOCKER_PARTS }, (args) =>
      /[\\/]node_modules[\\/](dockerode|docker-modem)[\\/]/.test(args.importer) ? { path: args.path, namespace: 'unused-docker-part' } : undefined,
    );
    plugin.onLoad({ filter: /.*/, namespace: 'unused-docker-part' }, (args) => ({
      contents: `const unavailable = function () { throw new Error(${JSON.stringify(`${args.path} is not in runner exec's bundle (ssh:// engines and BuildKit sessions are not supported)`)}); };
module.exports = new Proxy({}, { get: (_, name) => (name === '__esModule' ? false : unavailable) });`,
      loader: 'js',
    }));
  },
};

// The compile worker's: an ES module for Node 20, packages with native code left outside, and
// CommonJS packages inside it given Node's `require`, for this file.
const WORKER_BUNDLE = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  banner: { js: "import { createRequire as __gantryCreateRequire } from 'node:module'; const require = __gantryCreateRequire(import.meta.url);" },
  logLevel: 'warning',
  legalComments: 'inline',
  minifyWhitespace: true,
  minifySyntax: true,
};

// yargs finds its locales (y18n) and the package.json above node_modules from its own
// `import.meta.url`: its shim's stays the file's place in node_modules, not the bundle's.
const YARGS_SHIM = /(^|[\\/])node_modules[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/;
const yargsFilesBesideIt = {
  name: 'yargs-files-beside-it',
  setup(builder) {
    builder.onLoad({ filter: YARGS_SHIM }, async (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll(
        'import.meta.url',
        // The bundle's require (its banner): the shim declares a `require` of its own.
        "new URL('lib/platform-shims/esm.mjs', __gantryRequire('node:url').pathToFileURL(__gantryRequire.resolve('yargs/package.json'))).href",
      ),
      loader: 'js',
    }));
  },
};

// undici's cookie helpers (which nothing here calls) accept Node's own Headers too, and the
// brand check they build when loaded reads `globalThis.Headers`: Node then loads its own copy of
// undici, about 17 ms of CPU at every start. In this bundle they accept undici's Headers only.
const UNDICI_COOKIES = /(^|[\\/])node_modules[\\/]undici[\\/]lib[\\/]web[\\/]cookies[\\/]index\.js$/;
const UNDICI_BRAND_CHECK = '[Headers, globalThis.Headers].filter(Boolean)';
let undiciCookiesKept = false;
const undiciCookiesWithoutNodeHeaders = {
  name: 'undici-cookies-without-node-headers',
  setup(builder) {
    builder.onLoad({ filter: UNDICI_COOKIES }, async (args) => {
      const source = readFileSync(args.path, 'utf8');
      undiciCookiesKept = !source.includes(UNDICI_BRAND_CHECK);
      return { contents: source.replace(UNDICI_BRAND_CHECK, '[Headers]'), loader: 'js' };
    });
  },
};

const outdir = path.join(root, 'dist/cli');
const bundle = path.join(outdir, 'exec-bundle.cjs');
// A bundle of an earlier layout (an ES module and its chunks), and the cache of an earlier bundle.
for (const name of readdirSync(outdir)) if (/^exec-(chunk-.*|bundle)\.js$|^exec-bundle\.cache$/.test(name)) rmSync(path.join(outdir, name));

const { metafile } = await build({
  entryPoints: [path.join(root, 'dist/cli/exec-main.js')],
  outfile: bundle,
  metafile: true,
  plugins: [yargsFilesBesideIt, undiciCookiesWithoutNodeHeaders, withoutUnusedDockerParts],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  define: { 'import.meta': '__gantryImportMeta' },
  banner: { js: "var __gantryRequire = require, __gantryImportMeta = { url: require('node:url').pathToFileURL(__filename).href, dirname: __dirname, filename: __filename };" },
  logLevel: 'warning',
  legalComments: 'inline',
  minifyWhitespace: true,
  minifySyntax: true,
});
if (undiciCookiesKept) process.stderr.write("bundle-exec: undici's cookies module changed: it still loads Node's own undici at start\n");
const shimmed = Object.keys(metafile.inputs).filter((input) => YARGS_SHIM.test(input));
if (shimmed.length !== 1) throw new Error(`bundle-exec: yargs' shim is not where it was (${shimmed.join(', ') || 'not bundled'})`);
// Its id (src/cli/bundle-loader.ts): a code cache is used for the bundle it was made from only.
const bundleSource = readFileSync(bundle, 'utf8');
writeFileSync(bundle, `${bundleSource}\n//# gantryBundleId=${createHash('sha256').update(bundleSource).digest('hex')}\n`);

// The compile worker (dist/ci-sandbox/worker.js, a thread started by the coordinator) in one
// file too, in place: a worker loads its modules on its own, about 2 s of CPU for the compiler's
// files one by one on a busy machine. Nothing in it imports lazily or resolves files beside it.
const worker = path.join(root, 'dist/ci-sandbox/worker.js');
const bundledWorker = path.join(root, 'dist/ci-sandbox/worker.bundle.tmp.js');
await build({
  entryPoints: [worker],
  outfile: bundledWorker,
  ...WORKER_BUNDLE,
});
rmSync(`${worker}.map`, { force: true });
renameSync(bundledWorker, worker);

// The schema image of `runner exec`'s in-memory database (src/exec/session.ts): an empty SQLite
// database with every migration applied, serialized, so that each run copies it instead of
// running the migrations (about 0.2 s of CPU). Made from the compiled migrations of this build.
const { buildSqliteSchemaImage } = await import(path.join(root, 'dist/storage/sql/schema-image.js'));
writeFileSync(path.join(root, 'dist/exec-schema.sqlite3'), await buildSqliteSchemaImage());

// Last: the warm run needs the worker and the schema image. A process of its own, started as
// bin/runner starts (V8 refuses a cache made under other flags); its run's output is shown
// only if it fails.
const warm = spawnSync(process.execPath, [path.join(root, 'scripts/exec-code-cache.mjs')], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 120_000 });
if (warm.status !== 0) {
  process.stderr.write(`${warm.stdout.slice(-2000)}${warm.stderr.slice(-4000)}`);
  process.stderr.write(`bundle-exec: no code cache for runner exec (scripts/exec-code-cache.mjs exited ${warm.status ?? warm.signal}); it loads without\n`);
}
