// The V8 code cache of `runner exec`'s bundle (dist/cli/exec-bundle.cache, read by
// src/cli/bundle-loader.ts): the bundle loaded as bin/runner loads it, one warm run of
// `runner exec --json` on a small shell pipeline (an artifact, needs, two stages) in a
// throwaway repository, then the code of every function that run compiled, serialized. A cache
// made right after loading holds only the top level: start-up then still compiles most of what
// it runs. The run writes its output on this process's stdout and stderr.
// Usage: node scripts/exec-code-cache.mjs (scripts/bundle-exec.mjs runs it, after the bundle)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheFile = path.join(root, 'dist/cli/exec-bundle.cache');
const PIPELINE = `build:
  stage: build
  script: mkdir -p out && echo built > out/app.txt
  artifacts:
    paths: [out/]
test:
  stage: test
  needs: [build]
  script: cat out/app.txt
lint:
  stage: test
  script: echo lint
`;

const { loadBundle } = await import(path.join(root, 'dist/cli/bundle-loader.js'));
const loaded = loadBundle(path.join(root, 'dist/cli/exec-bundle.cjs'), cacheFile);
const dir = mkdtempSync(path.join(tmpdir(), 'gantry-exec-code-cache-'));
let exitCode;
try {
  const git = (...args) => execFileSync('git', ['-c', 'user.name=build', '-c', 'user.email=build@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, '.gitlab-ci.yml'), PIPELINE);
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src/app.txt'), 'app\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'warm run');
  process.chdir(dir);
  exitCode = await loaded.exports.execMain(['--json', '--concurrency', '2']);
} finally {
  process.chdir(root);
  rmSync(dir, { recursive: true, force: true });
}
if (exitCode !== 0) {
  process.stderr.write(`exec-code-cache: the warm run failed (exit ${exitCode})\n`);
  process.exit(1);
}
writeFileSync(cacheFile, loaded.createCodeCache());
// The cache is written; what the run left open (the compile worker's idle timer) is not waited for.
process.exit(0);
