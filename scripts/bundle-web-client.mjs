// Bundles the pages' client script (src/coordinator/web/client/browser/job-log.ts and ansi_up)
// into one file served by the coordinator: beside the sources for the tests (gitignored), and
// in dist/ for the package. Type-checks it first against the DOM's types (its own tsconfig).
// Usage: node scripts/bundle-web-client.mjs [src|dist]...
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const targets = process.argv.slice(2);
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'src/coordinator/web/client/tsconfig.json')], { stdio: 'inherit' });
for (const target of targets.length > 0 ? targets : ['src']) {
  await build({
    entryPoints: [path.join(root, 'src/coordinator/web/client/browser/job-log.ts')],
    outfile: path.join(root, target, 'coordinator/web/client/job-log.bundle.js'),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'inline',
    logLevel: 'warning',
  });
}
