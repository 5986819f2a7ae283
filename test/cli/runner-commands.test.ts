import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseRunnerConfig } from '../../src/runner/config/config.ts';
import { withinOrKill } from '../helpers/bounded.ts';
import { FakeGitLab } from '../runner/fake-gitlab.ts';
import { sample, until } from '../runner/observe.ts';
import { payload } from '../runner/support.ts';
import type { Readable } from 'node:stream';

const BIN = path.resolve(import.meta.dirname, '../../bin/runner');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command to its end; one still running after two minutes (a stop signal ignored, a wait that never ends) fails. */
function runner(args: string[], options: { cwd: string; env?: Record<string, string>; onStart?: (pid: number) => void } ): Promise<Run> {
  const child = spawn(BIN, args, { cwd: options.cwd, env: { ...process.env, GANTRY_LOG_LEVEL: 'warn', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (child.pid) options.onStart?.(child.pid);
  const closed = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return withinOrKill(child, closed, 120_000, `runner ${args.join(' ')} ending`);
}

/** A long-running `runner` whose output can be watched while it runs. */
function daemon(args: string[], cwd: string): { child: ChildProcessByStdio<null, Readable, Readable>; output: () => string; exited: Promise<number | null> } {
  const child = spawn(BIN, args, { cwd, env: { ...process.env, GANTRY_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

describe('runner commands (the installed command)', () => {
  const gitlab = new FakeGitLab();
  let dir: string;
  before(async () => {
    await gitlab.start();
    dir = await mkdtemp(path.join(os.tmpdir(), 'gantry-runner-cli-'));
  });
  after(async () => {
    await gitlab.stop();
  });

  it('registers non-interactively, writes config.toml with mode 0600, and lists the runner without its full token', async () => {
    const registered = await runner(['register', '--non-interactive', '--url', gitlab.url, '--registration-token', 'regtok', '--name', 'cli-runner', '--executor', 'shell', '--tag-list', 'a,b'], { cwd: dir });
    assert.equal(registered.code, 0, registered.stderr);
    const file = path.join(dir, 'config.toml');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const { config } = parseRunnerConfig(await readFile(file, 'utf8'));
    assert.equal(config.runners[0].name, 'cli-runner');
    assert.ok(gitlab.runnerTokens.has(config.runners[0].token));
    const body = JSON.parse(gitlab.requestsTo('POST', /^\/api\/v4\/runners$/).at(-1)?.body.toString() ?? '{}') as { tag_list: string; run_untagged: boolean };
    assert.equal(body.tag_list, 'a,b');
    assert.equal(body.run_untagged, false);
    const listed = await runner(['list'], { cwd: dir });
    assert.equal(listed.code, 0);
    assert.match(listed.stdout, new RegExp(`cli-runner  Executor=shell Token=${config.runners[0].token.slice(0, 8)}\\.\\.\\. URL=`));
    assert.ok(!listed.stdout.includes(config.runners[0].token));
  });

  it('takes the registration values from the environment variables gitlab-runner uses', async () => {
    const other = await mkdtemp(path.join(os.tmpdir(), 'gantry-runner-cli-'));
    const result = await runner(['register', '-n'], { cwd: other, env: { CI_SERVER_URL: gitlab.url, REGISTRATION_TOKEN: 'regtok', RUNNER_EXECUTOR: 'docker', DOCKER_IMAGE: 'gantry/busybox:latest', RUNNER_NAME: 'from-env' } });
    assert.equal(result.code, 0, result.stderr);
    const { config } = parseRunnerConfig(await readFile(path.join(other, 'config.toml'), 'utf8'));
    assert.deepEqual([config.runners[0].name, config.runners[0].executor, config.runners[0].docker.image, config.runners[0].docker.volumes], ['from-env', 'docker', 'gantry/busybox:latest', ['/cache']]);
  });

  it('fails with one clear line: bad registration token, unreachable coordinator, unknown executor, missing value', async () => {
    const cases: [string[], RegExp][] = [
      [['--url', gitlab.url, '--registration-token', 'wrong', '--executor', 'shell'], /^runner: registration failed: 403 forbidden \(check the registration token\)\n$/],
      [['--url', 'http://127.0.0.1:9', '--registration-token', 'x', '--executor', 'shell'], /^runner: cannot reach the coordinator at http:\/\/127\.0\.0\.1:9: .*ECONNREFUSED.*\n$/],
      // A token that starts with `-` (1 in 64 of those the coordinator makes) is the option's value, as gitlab-runner takes it.
      [['--url', 'http://127.0.0.1:9', '--registration-token', '-3678NLfvezcRGDJyOi', '--executor', 'shell'], /^runner: cannot reach the coordinator at http:\/\/127\.0\.0\.1:9: .*ECONNREFUSED.*\n$/],
      [['--url', 'http://127.0.0.1:9', '-t', '-3678NLfvezcRGDJyOi', '--executor', 'shell'], /^runner: cannot reach the coordinator at http:\/\/127\.0\.0\.1:9: .*ECONNREFUSED.*\n$/],
      [['--url', gitlab.url, '--registration-token', 'regtok', '--executor', 'kubernetes'], /^runner: unknown executor "kubernetes" \(known: shell, docker\)\n$/],
      [['--registration-token', 'regtok', '--executor', 'shell'], /^runner: --url is missing \(or set CI_SERVER_URL\)\n$/],
    ];
    const empty = await mkdtemp(path.join(os.tmpdir(), 'gantry-runner-cli-'));
    for (const [args, expected] of cases) {
      const result = await runner(['register', '-n', ...args], { cwd: empty, env: { CI_SERVER_URL: '' } });
      assert.equal(result.code, 1, args.join(' '));
      assert.match(result.stderr, expected);
    }
    await assert.rejects(stat(path.join(empty, 'config.toml')), 'nothing written');
  });

  it('reports a broken config.toml with file, line and column', async () => {
    const broken = await mkdtemp(path.join(os.tmpdir(), 'gantry-runner-cli-'));
    await writeFile(path.join(broken, 'config.toml'), 'concurrent = 1\n[[runners]]\nname = = "x"\n');
    const result = await runner(['list'], { cwd: broken });
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`^runner: ${path.join(broken, 'config.toml').replace(/[.]/g, '\\.')}:3:8: invalid TOML: .*\\n$`));
  });

  it('verify says which runners are alive; --delete drops the ones the coordinator forgot; unregister --name removes one', async () => {
    const file = path.join(dir, 'config.toml');
    await writeFile(file, `${await readFile(file, 'utf8')}\n[[runners]]\n  name = "forgotten"\n  url = "${gitlab.url}"\n  token = "forgotten-token"\n  executor = "shell"\n`);
    const verified = await runner(['verify', '--delete'], { cwd: dir });
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /is alive .*name=cli-runner/);
    assert.match(verified.stdout, /is removed .*name=forgotten/);
    assert.deepEqual(parseRunnerConfig(await readFile(file, 'utf8')).config.runners.map((entry) => entry.name), ['cli-runner']);
    const token = parseRunnerConfig(await readFile(file, 'utf8')).config.runners[0].token;
    const unregistered = await runner(['unregister', '--name', 'cli-runner'], { cwd: dir });
    assert.equal(unregistered.code, 0, unregistered.stderr);
    assert.ok(!gitlab.runnerTokens.has(token));
    assert.deepEqual(parseRunnerConfig(await readFile(file, 'utf8')).config.runners, []);
  });

  it('run-single --max-builds 1 runs one job with the shell executor and exits', async () => {
    gitlab.runnerTokens.add('single-token');
    const job = gitlab.enqueue(payload({ steps: [{ name: 'script', script: ['echo from run-single'], timeout: 60, when: 'on_success', allow_failure: false }] }));
    const result = await runner(['run-single', '--url', gitlab.url, '--token', 'single-token', '--executor', 'shell', '--max-builds', '1'], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(job.state, 'success');
    assert.match(job.trace.toString(), /\nfrom run-single\n/);
  });

  it('run stops on SIGQUIT after asking for jobs', async () => {
    gitlab.runnerTokens.add('run-token');
    const runDir = await mkdtemp(path.join(os.tmpdir(), 'gantry-runner-cli-'));
    await writeFile(path.join(runDir, 'config.toml'), `concurrent = 1\ncheck_interval = 1\n[[runners]]\n  name = "r"\n  url = "${gitlab.url}"\n  token = "run-token"\n  executor = "shell"\n`);
    const before = gitlab.requestsTo('POST', /jobs\/request/).length;
    let poll: NodeJS.Timeout | undefined;
    const result = await runner(['run'], {
      cwd: runDir,
      onStart: (pid) => {
        poll = setInterval(() => {
          if (gitlab.requestsTo('POST', /jobs\/request/).length > before) {
            clearInterval(poll);
            process.kill(pid, 'SIGQUIT');
          }
        }, 50);
      },
    }).finally(() => clearInterval(poll)); // a runner that never asked must not leave the interval keeping the file alive
    assert.equal(result.code, 0, result.stderr);
  });

  it('run --listen-address serves /metrics and /health, reloads on SIGHUP, and on SIGTERM fails the running job (runner_system_failure) and closes the port', async () => {
    gitlab.runnerTokens.add('metrics-token');
    const runDir = await mkdtemp(path.join(os.tmpdir(), 'gantry-runner-cli-'));
    const file = path.join(runDir, 'config.toml');
    const runnerEntry = `[[runners]]\n  name = "m"\n  url = "${gitlab.url}"\n  token = "metrics-token"\n  executor = "shell"\n`;
    await writeFile(file, `concurrent = 1\ncheck_interval = 1\nshutdown_timeout = 10\nlog_format = "json"\n${runnerEntry}`);
    const running = daemon(['run', '--listen-address', '127.0.0.1:0'], runDir);
    try {
      await until(() => /serving \/metrics and \/health on 127\.0\.0\.1:\d+/.test(running.output()), 20_000, 'the metrics server');
      const base = `http://${/on (127\.0\.0\.1:\d+)/.exec(running.output())?.[1]}`;
      const health = await fetch(`${base}/health`);
      assert.equal(health.status, 200);
      assert.equal(((await health.json()) as { status: string }).status, 'ok');

      const quick = gitlab.enqueue(payload({ steps: [{ name: 'script', script: ['echo quick'], timeout: 60, when: 'on_success', allow_failure: false }] }));
      await until(() => quick.state === 'success', 20_000, 'the first job');
      // The coordinator sees the final update before the runner counts the job: wait for the count.
      await until(async () => sample(await (await fetch(`${base}/metrics`)).text(), 'gitlab_runner_jobs_finished_total', { runner: 'metrics-', state: 'success' }) !== undefined, 20_000, 'the finished-job count');
      const afterJob = await (await fetch(`${base}/metrics`)).text();
      assert.equal(sample(afterJob, 'gitlab_runner_jobs_finished_total', { runner: 'metrics-', state: 'success' }), 1);
      assert.equal(sample(afterJob, 'gitlab_runner_concurrent'), 1);

      await writeFile(file, `concurrent = 2\ncheck_interval = 1\nshutdown_timeout = 10\nlog_format = "json"\n${runnerEntry}`);
      running.child.kill('SIGHUP');
      await until(async () => sample(await (await fetch(`${base}/metrics`)).text(), 'gitlab_runner_concurrent') === 2, 20_000, 'the reload');
      assert.match(running.output(), /"msg":"configuration reloaded"/);

      const slow = gitlab.enqueue(payload({ steps: [{ name: 'script', script: ['echo started', 'sleep 30'], timeout: 120, when: 'on_success', allow_failure: false }] }));
      await until(() => slow.trace.includes('started'), 20_000, 'the slow job to start');
      running.child.kill('SIGTERM');
      // 0: the job reported within shutdown_timeout (the runner exits 1 when it gives up waiting).
      assert.equal(await withinOrKill(running.child, running.exited, 60_000, 'runner run exiting after SIGTERM'), 0, running.output());
      assert.equal(slow.state, 'failed');
      assert.equal(slow.failureReason, 'runner_system_failure');
      assert.match(slow.trace.toString(), /ERROR: Job failed \(system failure\): aborted: terminated/);
      await assert.rejects(fetch(`${base}/health`), 'the port is closed');
    } finally {
      running.child.kill('SIGKILL');
    }
  });

  it('run refuses a bad --listen-address and a bad listen_address with one line', async () => {
    const runDir = await mkdtemp(path.join(os.tmpdir(), 'gantry-runner-cli-'));
    const entry = `[[runners]]\n  name = "r"\n  url = "${gitlab.url}"\n  token = "run-token"\n  executor = "shell"\n`;
    await writeFile(path.join(runDir, 'config.toml'), `concurrent = 1\n${entry}`);
    const flag = await runner(['run', '--listen-address', 'localhost'], { cwd: runDir });
    assert.equal(flag.code, 1);
    assert.equal(flag.stderr, 'runner: --listen-address "localhost" must be host:port (for example 127.0.0.1:9252 or :9252)\n');
    await writeFile(path.join(runDir, 'config.toml'), `concurrent = 1\nlisten_address = "127.0.0.1:99999"\n${entry}`);
    const key = await runner(['run'], { cwd: runDir });
    assert.equal(key.code, 1);
    assert.match(key.stderr, /^runner: .*config\.toml:2:1: listen_address "127\.0\.0\.1:99999" must be host:port \(for example 127\.0\.0\.1:9252 or :9252\)\n$/);
  });
});
