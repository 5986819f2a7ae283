import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseRunnerConfig } from '../../src/runner/config/config.ts';
import { FakeGitLab } from '../runner/fake-gitlab.ts';
import { payload } from '../runner/support.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/runner');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runner(args: string[], options: { cwd: string; env?: Record<string, string>; onStart?: (pid: number) => void } ): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(BIN, args, { cwd: options.cwd, env: { ...process.env, GANTRY_LOG_LEVEL: 'warn', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    if (child.pid) options.onStart?.(child.pid);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
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
    const result = await runner(['run'], {
      cwd: runDir,
      onStart: (pid) => {
        const poll = setInterval(() => {
          if (gitlab.requestsTo('POST', /jobs\/request/).length > before) {
            clearInterval(poll);
            process.kill(pid, 'SIGQUIT');
          }
        }, 50);
      },
    });
    assert.equal(result.code, 0, result.stderr);
  });
});
