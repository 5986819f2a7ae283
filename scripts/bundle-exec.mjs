// Bundles `runner exec` (dist/cli/commands/exec.js and everything it imports: the coordinator,
// the runner, their packages) into one file, dist/cli/exec-bundle.js, which src/cli/runner.ts
// imports when it is there; and the compile worker (dist/ci-sandbox/worker.js), in place.
// Loading the ~700 modules of `runner exec` one by one costs a process about 1.4 s of CPU,
// one file about 0.7 s (docs/benchmarks.md, "runner exec").
// Dynamic imports stay lazy: esbuild splits what they import into chunks of their own
// (dist/cli/exec-chunk-*.js), so that a package imported only there (dockerode, for
// `--executor docker`) is not loaded with the entry, as it would be if everything were one file
// (an ES module's static imports of an external package are hoisted to its top). Packages with
// native code or files read beside their sources stay outside, loaded from node_modules as usual.
// dockerode is bundled without the parts it loads for what Gantry never asks of it (ssh2 for
// ssh:// engines, which the runner refuses; gRPC and protobuf for BuildKit sessions of image
// builds): they were most of its loading cost (about 0.1 s of CPU), and a stub stands in.
// The bundle and its chunks sit two levels under the package like every compiled module, so the
// paths the sources resolve from `import.meta.url` (package.json, ci-sandbox/worker.js) still hold.
// Usage: node scripts/bundle-exec.mjs (after tsc has written dist/)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

// What both bundles share: ES modules for Node 20, packages with native code left outside, and
// CommonJS packages inside an ES module bundle given Node's `require`, for this file.
const SHARED = {
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

const outdir = path.join(root, 'dist/cli');
for (const name of readdirSync(outdir)) if (name.startsWith('exec-chunk-')) rmSync(path.join(outdir, name));

await build({
  entryPoints: { 'exec-bundle': path.join(root, 'dist/cli/commands/exec.js') },
  outdir,
  chunkNames: 'exec-chunk-[hash]',
  splitting: true,
  ...SHARED,
  plugins: [withoutUnusedDockerParts],
});

// The compile worker (dist/ci-sandbox/worker.js, a thread started by the coordinator) in one
// file too, in place: a worker loads its modules on its own, about 2 s of CPU for the compiler's
// files one by one on a busy machine. Nothing in it imports lazily or resolves files beside it.
const worker = path.join(root, 'dist/ci-sandbox/worker.js');
const bundledWorker = path.join(root, 'dist/ci-sandbox/worker.bundle.tmp.js');
await build({
  entryPoints: [worker],
  outfile: bundledWorker,
  ...SHARED,
});
rmSync(`${worker}.map`, { force: true });
renameSync(bundledWorker, worker);

// The schema image of `runner exec`'s in-memory database (src/exec/session.ts): an empty SQLite
// database with every migration applied, serialized, so that each run copies it instead of
// running the migrations (about 0.2 s of CPU). Made from the compiled migrations of this build.
const { buildSqliteSchemaImage } = await import(path.join(root, 'dist/storage/sql/schema-image.js'));
writeFileSync(path.join(root, 'dist/exec-schema.sqlite3'), await buildSqliteSchemaImage());
