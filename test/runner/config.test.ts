import assert from 'node:assert/strict';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, parseRunnerConfig } from '../../src/runner/config/config.ts';
import { appendRunner, removeRunners } from '../../src/runner/config/write.ts';

describe('config.toml', () => {
  it("reads gitlab-runner's keys with their defaults", () => {
    const { config, warnings } = parseRunnerConfig(
      `concurrent = 4
check_interval = 0
listen_address = "127.0.0.1:9252"
[session_server]
  session_timeout = 1800
[[runners]]
  name = "wiretest"
  url = "http://127.0.0.1:18080/"
  token = "runnertok123456"
  executor = "docker"
  limit = 2
  environment = ["A=1"]
  pre_clone_script = "echo pre"
  post_clone_script = "echo post"
  [runners.custom_build_dir]
    enabled = true
  [runners.cache]
    Type = "local"
    Shared = true
    [runners.cache.s3]
  [runners.docker]
    image = "gantry/busybox:latest"
    pull_policy = ["if-not-present", "never"]
    allowed_pull_policies = ["always", "if-not-present"]
    volumes = ["/cache"]
    memory = "512m"
[[runners]]
  name = "second"
  url = "https://gitlab.example.com"
  token = "tok2"
  executor = "shell"
  pull_policy_typo = 1
`,
      'config.toml',
    );
    assert.equal(config.concurrent, 4);
    assert.equal(config.checkInterval, 0);
    assert.equal(config.shutdownTimeout, 30);
    assert.equal(config.listenAddress, '127.0.0.1:9252');
    const [first, second] = config.runners;
    assert.equal(first.executor, 'docker');
    assert.equal(first.limit, 2);
    assert.equal(first.requestConcurrency, 1);
    assert.equal(first.outputLimit, 4096);
    assert.equal(first.shell, 'bash');
    assert.equal(first.preGetSourcesScript, 'echo pre');
    assert.equal(first.postGetSourcesScript, 'echo post', 'post_clone_script: the old name of post_get_sources_script');
    assert.equal(first.customBuildDir, true);
    assert.deepEqual(first.environment, ['A=1']);
    assert.deepEqual(first.cache, { type: 'local', path: undefined, shared: true });
    assert.deepEqual(first.docker, { image: 'gantry/busybox:latest', pullPolicy: ['if-not-present', 'never'], allowedPullPolicies: ['always', 'if-not-present'], volumes: ['/cache'], memory: '512m' });
    assert.equal(second.executor, 'shell');
    assert.equal(second.customBuildDir, undefined, 'unset: the executor decides');
    assert.deepEqual(warnings, [
      'config.toml:4:1: session_server is not supported by this runner and is ignored',
      'config.toml:20:5: runners[0].cache.s3 is not supported by this runner and is ignored',
      'config.toml:32:3: unknown key runners[1].pull_policy_typo (ignored)',
    ]);
  });

  it('reads config.example.toml without errors or warnings (its [coordinator] table is skipped)', async () => {
    const text = await readFile(new URL('../../config.example.toml', import.meta.url), 'utf8');
    const { config, warnings } = parseRunnerConfig(text, 'config.example.toml');
    assert.deepEqual(warnings, []);
    assert.equal(config.concurrent, 1);
  });

  it('reports syntax errors with line and column', () => {
    assert.throws(() => parseRunnerConfig('concurrent = 1\n[[runners]]\nname = = "x"\n', 'my.toml'), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /^my\.toml:3:8: invalid TOML: /);
      return true;
    });
  });

  it('reports wrong types, missing keys and an unknown executor, each with its position', () => {
    const text = `concurrent = "four"
[[runners]]
  name = "a"
  url = "http://x"
  executor = "kubernetes"
  [runners.docker]
    pull_policy = "sometimes"
    allowed_pull_policies = ["always", "on-tuesdays"]
`;
    assert.throws(() => parseRunnerConfig(text, 'c.toml'), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.deepEqual(error.message.split('\n'), [
        'c.toml:1:1: concurrent must be a whole number (0 or more)',
        'c.toml:7:5: runners[0].docker.pull_policy must be always, if-not-present or never, or a list of them',
        'c.toml:8:5: runners[0].docker.allowed_pull_policies must be always, if-not-present or never, or a list of them',
        'c.toml:2:1: runners[0].token is missing',
        'c.toml:5:3: runners[0].executor: unknown executor "kubernetes" (known: shell, docker)',
      ]);
      return true;
    });
  });

  it('register appends an entry to a file created with mode 0600; unregister removes it', async () => {
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'gantry-config-')), 'config.toml');
    await appendRunner(file, { name: 'one', url: 'http://x/', token: 'tok-1', executor: 'shell', shell: 'bash' });
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    await writeFile(file, `# my comment\n${await readFile(file, 'utf8')}`);
    await appendRunner(file, { name: 'two', url: 'http://x/', token: 'tok-2', executor: 'docker', docker: { image: 'gantry/busybox:latest', volumes: ['/cache'] } });
    const text = await readFile(file, 'utf8');
    assert.ok(text.startsWith('# my comment\n'));
    const { config } = parseRunnerConfig(text);
    assert.deepEqual(config.runners.map((runner) => [runner.name, runner.token, runner.executor, runner.docker.image]), [
      ['one', 'tok-1', 'shell', undefined],
      ['two', 'tok-2', 'docker', 'gantry/busybox:latest'],
    ]);
    assert.equal(await removeRunners(file, (entry) => entry.name === 'one'), 1);
    assert.deepEqual(parseRunnerConfig(await readFile(file, 'utf8')).config.runners.map((runner) => runner.name), ['two']);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
  });
});
