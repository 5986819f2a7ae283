/**
 * `runner exec`'s command line as a user meets it: flags that contradict each other or name no
 * variable are refused in one line before anything runs; `--preview --json` is JSON; and, from
 * the compiled package run as a command (`bin/runner`, not `node bin/runner`), a missing
 * `--env-file` is runner exec's error, not Node's, `--cwd` starts the run elsewhere, a `--shell-on-failure` shell of a `--json`
 * run talks on stderr, leaving stdout the result document, and a run stopped by Ctrl-C, SIGTERM
 * or its reader going away (`| head`) leaves no process and no temporary directory behind.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { ExecArgs } from '../../src/cli/commands/exec.ts';
import { waitUntil, withinOrKill } from '../helpers/bounded.ts';
import { exec, statuses, workingTree, type JsonResult } from './exec-helpers.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/runner');

/** Goes on printing until stopped, its pid in $PID_FILE. */
const TICKING = 'ticking:\n  script:\n    - sh -c \'echo $$ > "$PID_FILE"; while true; do echo tick; sleep 0.2; done\'\n';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `runner exec` on TICKING with a TMPDIR of its own, stopped by `stop` once its job runs: its
 * exit status and stderr, whether the job's process is gone, and what is left in its TMPDIR.
 */
async function stoppedRun(stop: (child: ReturnType<typeof spawn>) => void): Promise<{ code: number | null; stderr: string; left: string[] }> {
  const dir = workingTree({ '.gitlab-ci.yml': TICKING });
  const scratch = mkdtempSync(path.join(tmpdir(), 'gantry-exec-stop-'));
  const runTmp = path.join(scratch, 'tmp');
  const pidFile = path.join(scratch, 'job.pid');
  try {
    mkdirSync(runTmp);
    const child = spawn(BIN, ['exec', '--variable', `PID_FILE=${pidFile}`], { cwd: dir, env: { ...process.env, TMPDIR: runTmp }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), 'the job to start', { timeoutMs: 60_000 });
    const jobPid = Number(readFileSync(pidFile, 'utf8'));
    stop(child);
    const code = await withinOrKill(child, closed, 60_000, 'runner exec to stop');
    await waitUntil(() => !isAlive(jobPid), `the job's process ${jobPid} to be gone`);
    return { code, stderr, left: readdirSync(runTmp) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

function runBinary(cwd: string, args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(BIN, ['exec', ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  const closed = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return withinOrKill(child, closed, 120_000, `runner exec ${args.join(' ')}`);
}

describe('runner exec command line', () => {
  const dir = workingTree({ '.gitlab-ci.yml': 'base:\n  script: echo base\nbuild:\n  extends: base\n  needs: []\n' });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const refused: Array<[ExecArgs, string]> = [
    [{ list: true, jobs: ['build'] }, '--list shows the whole pipeline: leave out job names'],
    [{ preview: true, stage: 'test', needs: true }, '--preview shows the whole pipeline: leave out --stage and --needs'],
    [{ payload: 'build', jobs: ['base'] }, '--payload JOB names its one job: leave out job names'],
    [{ payload: 'build', stage: 'test' }, '--payload JOB names its one job: leave out --stage'],
    [{ needs: true }, '--needs adds what the chosen jobs need: name jobs or a --stage'],
    [{ variable: ['DEPLOY-TARGET=prod'] }, '--variable DEPLOY-TARGET: not a variable name (letters, digits and _, not starting with a digit)'],
    [{ variable: ['OK=1', 'TWO WORDS=x'] }, '--variable TWO WORDS: not a variable name (letters, digits and _, not starting with a digit)'],
    [{ input: ['replicas'] }, '--input expects NAME=VALUE, got "replicas"'],
  ];
  for (const [args, message] of refused) {
    it(`refuses ${JSON.stringify(args)} in one line, running nothing`, async () => {
      const result = await exec(dir, args);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stderr, `runner exec: ${message}\n`);
      assert.equal(result.stdout, '');
      assert.ok(!existsSync(path.join(dir, '.gantry')), 'nothing ran: no .gantry/ was made');
    });
  }

  it('with --json, an error is a document on stdout too: a refused flag, an invalid configuration', async () => {
    const refusedFlag = await exec(dir, { json: true, list: true, stage: 'test' });
    assert.equal(refusedFlag.code, 2);
    assert.deepEqual(JSON.parse(refusedFlag.stdout), { status: 'error', exitCode: 2, error: '--list shows the whole pipeline: leave out --stage' });
    const invalid = await exec(dir, { json: true, file: 'missing.yml' });
    assert.equal(invalid.code, 1);
    assert.deepEqual(JSON.parse(invalid.stdout), { status: 'error', exitCode: 1, error: 'Missing missing.yml file' });
    assert.equal(invalid.stderr, 'runner exec: Missing missing.yml file\n');
  });

  it('refuses a SHA-256 repository in one line, naming it, where its object names failed as refs deep in the run', async () => {
    const sha256 = mkdtempSync(path.join(tmpdir(), 'gantry-exec-sha256-'));
    try {
      const run = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: sha256 });
      run('init', '-q', '-b', 'main', '--object-format=sha256');
      writeFileSync(path.join(sha256, '.gitlab-ci.yml'), 'job:\n  script: echo hi\n');
      run('add', '-A');
      run('commit', '-qm', 'first');
      const result = await exec(sha256, {});
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stderr, `runner exec: ${sha256} uses SHA-256 object names (extensions.objectFormat): runner exec takes SHA-1 repositories only, GitLab's default\n`);
      assert.ok(!existsSync(path.join(sha256, '.gantry')), 'nothing ran');
    } finally {
      rmSync(sha256, { recursive: true, force: true });
    }
  });

  it('--preview --json prints the merged configuration as JSON', async () => {
    const result = await exec(dir, { preview: true, json: true });
    assert.equal(result.code, 0, result.stderr);
    const merged = JSON.parse(result.stdout) as Record<string, { script?: string; needs?: unknown[]; extends?: unknown }>;
    assert.equal(merged.build?.script, 'echo base');
    assert.deepEqual(merged.build?.needs, []);
    assert.equal(merged.build?.extends, undefined);
  });
});

describe('bin/runner exec run as a command', () => {
  const dir = workingTree({ '.gitlab-ci.yml': 'broken:\n  script:\n    - echo "job output"\n    - exit 4\n' });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('takes one value per --variable, --manual and --env-file: a job name after one is a job name', async () => {
    const ci = 'greet:\n  script: echo "greeting=$GREETING $NAME"\nship:\n  when: manual\n  script: echo shipped\nother:\n  script: exit 1\n';
    const tree = workingTree({ '.gitlab-ci.yml': ci, 'local.env': 'NAME=from-env-file\n' });
    try {
      const args = ['--variable', 'GREETING=hi', 'greet', '--manual', 'ship', 'ship', '--env-file', 'local.env', '--json'];
      const result = await runBinary(tree, args, '');
      assert.equal(result.code, 0, result.stderr);
      const outcome = JSON.parse(result.stdout) as JsonResult;
      assert.deepEqual(statuses(outcome), { greet: 'success', ship: 'success' });
      assert.match(result.stderr, /greeting=hi from-env-file/);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it('starts from --cwd: the tree above it, and relative flags read from there', async () => {
    const tree = workingTree({ '.gitlab-ci.yml': 'greet:\n  script: echo "greeting=$NAME"\n', 'sub/local.env': 'NAME=from-sub\n' });
    try {
      const result = await runBinary(tmpdir(), ['--cwd', path.join(tree, 'sub'), '--env-file', 'local.env', '--json'], '');
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(statuses(JSON.parse(result.stdout) as JsonResult), { greet: 'success' });
      assert.match(result.stderr, /greeting=from-sub/);
      const missing = await runBinary(tree, ['--cwd', 'nowhere'], '');
      assert.deepEqual([missing.code, missing.stderr], [2, 'runner exec: --cwd: nowhere is not a directory\n']);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it("says itself that an --env-file is missing (Node 20 would exit first, reading the script's --env-file as its own)", async () => {
    for (const args of [['--env-file', 'missing.env'], ['--env-file=missing.env']]) {
      const result = await runBinary(dir, args, '');
      assert.equal(result.stderr, 'runner exec: --env-file missing.env: no such file\n', args.join(' '));
      assert.equal(result.code, 1);
    }
  });

  it('with --json, opens the failure shell on stderr: stdout stays the JSON result', async () => {
    const result = await runBinary(dir, ['--json', '--shell-on-failure'], 'echo "shell says $CI_JOB_NAME"; exit\n');
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^shell says broken$/m);
    assert.doesNotMatch(result.stderr, /no job control/, 'stdin is no terminal: the shell reads it as a script, not interactively');
    const outcome = JSON.parse(result.stdout) as JsonResult;
    assert.deepEqual(outcome.jobs.map((job) => [job.name, job.status]), [['broken', 'failed']]);
  });

  it('stops on Ctrl-C: exit status 130, the job killed, no temporary directory left', async () => {
    const run = await stoppedRun((child) => child.kill('SIGINT'));
    assert.equal(run.code, 130, run.stderr);
    assert.match(run.stderr, /runner exec: interrupted\n$/);
    assert.deepEqual(run.left, []);
  });

  it('stops on SIGTERM: exit status 143, the job killed, no temporary directory left', async () => {
    const run = await stoppedRun((child) => child.kill('SIGTERM'));
    assert.equal(run.code, 143, run.stderr);
    assert.match(run.stderr, /runner exec: interrupted\n$/);
    assert.deepEqual(run.left, []);
  });

  it('stops when its reader goes away (| head): exit status 141, the job killed, no temporary directory left', async () => {
    const run = await stoppedRun((child) => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    });
    assert.equal(run.code, 141);
    assert.deepEqual(run.left, []);
  });
});
