/**
 * `bin/runner exec` as users run it: from the compiled package, through the one-file bundle
 * scripts/build.sh makes (scripts/bundle-exec.mjs). The other exec tests run the sources; this
 * one checks that the bundle holds together: its own yargs parses exec's flags, V8 takes the
 * code cache the build made for it, the
 * compile worker (bundled too) starts from it (its path is resolved from the bundle's place),
 * the in-memory database starts from the schema image beside it, the snapshot reaches the jobs
 * and an artifact passes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { bundleIdOf } from '../../src/cli/bundle-loader.ts';
import { skipDocker } from '../executors/docker-support.ts';
import { withinOrKill } from '../helpers/bounded.ts';
import { workingTree, writeFiles, type JsonResult } from './exec-helpers.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/runner');
const BUNDLE = path.resolve(import.meta.dirname, '../../dist/cli/exec-bundle.cjs');
const CODE_CACHE = path.resolve(import.meta.dirname, '../../dist/cli/exec-bundle.cache');
const WORKER = path.resolve(import.meta.dirname, '../../dist/ci-sandbox/worker.js');
const SCHEMA_IMAGE = path.resolve(import.meta.dirname, '../../dist/exec-schema.sqlite3');

function runExecBinary(cwd: string, args: string[], env: NodeJS.ProcessEnv = process.env, nodeOptions: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...nodeOptions, BIN, 'exec', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return withinOrKill(child, closed, 120_000, `runner exec ${args.join(' ')}`);
}

describe('runner exec from the compiled package', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('is built as one bundle beside the compiled CLI', () => {
    assert.ok(existsSync(BUNDLE), `${BUNDLE} is missing: scripts/build.sh makes it`);
  });

  it('has the code cache of its bundle, made for this bundle', () => {
    const bundleId = bundleIdOf(readFileSync(BUNDLE, 'utf8'));
    assert.ok(bundleId !== null, 'the bundle ends with its id');
    const cache = readFileSync(CODE_CACHE);
    assert.equal(cache.subarray(0, cache.indexOf(0x0a)).toString('latin1'), bundleId);
    // A warm run's: one made right after loading holds the top level only (about 1.5 MB).
    assert.ok(cache.length > 3_000_000, `the code cache holds ${cache.length} bytes only`);
  });

  it('has the schema image of its in-memory database: a SQLite database holding the migrated schema', () => {
    const image = readFileSync(SCHEMA_IMAGE);
    assert.equal(image.subarray(0, 16).toString('latin1'), 'SQLite format 3\0');
    assert.ok(image.includes('kysely_migration') && image.includes('CREATE TABLE'), 'the image holds the migrations table and the schema');
  });

  it('has the compile worker in one file: it imports no module of ours', () => {
    const worker = readFileSync(WORKER, 'utf8');
    assert.doesNotMatch(worker, /from\s*["']\.{1,2}\//, 'the compile worker imports compiled modules one by one');
    assert.match(worker, /function compilePipeline\b/, 'the compiler is inside the worker file');
  });

  it("parses exec's flags with the yargs inside the bundle: help, and an unknown flag refused in one line", async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'gantry-exec-bundle-cli-'));
    dirs.push(outside);
    const helped = await runExecBinary(outside, ['--help']);
    assert.equal(helped.code, 0, helped.stderr);
    assert.match(helped.stdout, /^runner exec \[jobs\.\.\]/);
    assert.match(helped.stdout, /--concurrency +Jobs at once/);
    const refused = await runExecBinary(outside, ['--bogus']);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'runner: Unknown argument: bogus\n');
  });

  it("leaves Node's own copy of undici unloaded: the bundle's serves the runner and exec's API calls", async () => {
    const dir = workingTree({ '.gitlab-ci.yml': 'job:\n  script: echo hello\n' });
    dirs.push(dir);
    const report = "process.on('exit', () => process.stderr.write(`node's undici loaded: ${process.moduleLoadList.some((name) => name.includes('internal/deps/undici'))}\\n`));";
    const run = await runExecBinary(dir, ['--json'], process.env, ['--import', `data:text/javascript,${encodeURIComponent(report)}`]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /node's undici loaded: false\n/);
  });

  it('runs a pipeline through the bundle: the uncommitted file reaches the jobs and the artifact the next stage', async () => {
    const dir = workingTree({
      '.gitlab-ci.yml': [
        'build:',
        '  stage: build',
        '  script: mkdir -p out && cat input.txt > out/copy.txt',
        '  artifacts:',
        '    paths: [out/]',
        'test:',
        '  stage: test',
        '  script: grep -q uncommitted out/copy.txt',
        '',
      ].join('\n'),
      'input.txt': 'committed\n',
    });
    dirs.push(dir);
    writeFiles(dir, { 'input.txt': 'uncommitted\n' });
    const run = await runExecBinary(dir, ['--json', '--concurrency', '2'], { ...process.env, GANTRY_EXEC_TRACE: '1' });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /exec bundle loaded \(code cache: used\)/, 'V8 takes the code cache');
    const result = JSON.parse(run.stdout) as JsonResult;
    assert.deepEqual(result.jobs.map((job) => [job.name, job.status]), [['build', 'success'], ['test', 'success']]);
    assert.equal(readFileSync(path.join(dir, '.gantry/artifacts/build/out/copy.txt'), 'utf8'), 'uncommitted\n');
  });

  it('runs a docker job through the bundle, dockerode inside it without the packages it would load for ssh:// engines and BuildKit', { skip: skipDocker }, async () => {
    const bundle = readFileSync(BUNDLE, 'utf8').replace(/unused-docker-part:[^"]*/g, '');
    assert.doesNotMatch(bundle, /require\(["'](dockerode|ssh2|@grpc\/grpc-js)["']\)/, 'the bundle loads dockerode, ssh2 or gRPC from node_modules');
    assert.match(bundle, /docker-modem|DockerModem|Modem/, 'dockerode is inside the bundle');
    const dir = workingTree({ '.gitlab-ci.yml': 'inside:\n  image: gantry/busybox:latest\n  script: test -f /.dockerenv && echo "container sees $(cat input.txt)"\n', 'input.txt': 'committed\n' });
    dirs.push(dir);
    const run = await runExecBinary(dir, ['--json', '--executor', 'docker']);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as JsonResult;
    assert.deepEqual(result.jobs.map((job) => [job.name, job.status]), [['inside', 'success']]);
  });
});
