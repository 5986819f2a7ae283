import assert from 'node:assert/strict';
import { mkdtemp, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FakeExecutor, type FakeHandler } from '../../src/executors/fake/fake-executor.ts';
import { parseRunnerConfig } from '../../src/runner/config/config.ts';
import { RunnerService } from '../../src/runner/daemon/service.ts';
import { FakeGitLab } from './fake-gitlab.ts';
import type { Logger } from '../../src/shared/logger.ts';
import { capturingLogger, until, type LogLine } from './observe.ts';
import { payload } from './support.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('config reload (file change and SIGHUP)', () => {
  let gitlab: FakeGitLab;
  let dir: string;
  let file: string;
  let service: RunnerService | null = null;
  let lines: LogLine[];
  let logger: Logger;
  beforeEach(async () => {
    gitlab = new FakeGitLab();
    await gitlab.start();
    gitlab.runnerTokens.add('reloadtok-a');
    gitlab.runnerTokens.add('reloadtok-b');
    dir = await mkdtemp(path.join(os.tmpdir(), 'gantry-reload-'));
    file = path.join(dir, 'config.toml');
  });
  afterEach(async () => {
    await service?.abort('test over', 5000);
    service = null;
    await gitlab.stop();
  });

  const entry = (name: string, token: string, extra = '') => `[[runners]]\n  name = "${name}"\n  url = "${gitlab.url}"\n  token = "${token}"\n  executor = "shell"\n${extra}`;
  /** Writes the file the way editors and `runner register` do: a new file renamed over the old one. */
  const replaceFile = async (text: string) => {
    await writeFile(`${file}.tmp`, text);
    await rename(`${file}.tmp`, file);
  };
  const requestsWith = (token: string) => gitlab.requestsTo('POST', /jobs\/request/).filter((request) => (JSON.parse(request.body.toString()) as { token: string }).token === token).length;

  const start = async (text: string, handler: FakeHandler, watch = true) => {
    await writeFile(file, text);
    const { config } = parseRunnerConfig(text, file);
    const captured = capturingLogger('info');
    lines = captured.lines;
    logger = captured.logger;
    const executor = new FakeExecutor({ handler });
    service = new RunnerService({
      config,
      configFile: file,
      configText: text,
      logger: captured.logger,
      workingDirectory: dir,
      executorFor: () => executor,
      traceUpdateInterval: 0.05,
      watchConfig: watch,
      watchTimings: { debounceMs: 50, pollMs: 200 },
      timings: { checkIntervalMs: 30, minBackoffMs: 20, maxBackoffMs: 50, unhealthyPauseMs: 60_000 },
    });
    await service.start();
    return service;
  };

  it('applies concurrent, log_level and added, changed and removed entries from an edited file; a removed entry finishes its running job', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const running = await start(`concurrent = 1\nlog_level = "info"\n${entry('a', 'reloadtok-a')}`, async ({ request }) => {
      if (request.stage === 'step_script') await held;
      return { exitCode: 0 };
    });
    const first = gitlab.enqueue(payload());
    await until(() => running.daemon.status().runners[0].running === 1, 10_000, 'a job on entry a');
    assert.equal(first.state, 'running');
    assert.equal(running.daemon.hasCapacity(), false, 'concurrent = 1 is used up');

    await replaceFile(`concurrent = 4\nlog_level = "debug"\n${entry('b', 'reloadtok-b', '  limit = 3\n')}`);
    await until(() => running.daemon.currentConfig.concurrent === 4, 10_000, 'the reload');
    assert.equal(running.daemon.jobs.concurrency, 4);
    assert.equal(running.daemon.hasCapacity(), true);
    assert.equal(lines.find((line) => line.msg === 'configuration reloaded')?.trigger, 'file change');
    assert.deepEqual(lines.find((line) => line.msg === 'configuration reloaded')?.added, ['b reloadto']);
    assert.deepEqual(lines.find((line) => line.msg === 'configuration reloaded')?.removed, ['a reloadto']);
    assert.equal(running.daemon.workers.map((worker) => worker.entry.name).join(), 'b');
    await until(() => requestsWith('reloadtok-b') > 0, 10_000, 'entry b to ask for jobs');

    // Entry a is gone from the file, but its job is not dropped: it finishes and reports.
    const askedByA = requestsWith('reloadtok-a');
    await sleep(200);
    assert.equal(requestsWith('reloadtok-a'), askedByA, 'a removed entry stops asking');
    assert.equal(first.state, 'running');
    release();
    await until(() => first.state === 'success', 10_000, 'the job of the removed entry to finish');
    assert.equal(service?.daemon.status().runners.length, 1);

    // log_level applies at once, to the loggers of entries and jobs too.
    assert.equal(logger.level, 'debug');
    const debugBefore = lines.filter((line) => line.level === 20).length;
    running.daemon.workers[0].logger.child({ job: 1 }).debug('a debug line');
    assert.equal(lines.filter((line) => line.level === 20).length, debugBefore + 1);
    const second = gitlab.enqueue(payload());
    await until(() => second.state === 'success', 10_000, 'a job on entry b');

    // A changed entry keeps its worker (and its limit count) and takes the new settings.
    const worker = running.daemon.workers[0];
    await replaceFile(`concurrent = 4\n${entry('b-renamed', 'reloadtok-b', '  limit = 1\n  request_concurrency = 2\n')}`);
    await until(() => worker.entry.name === 'b-renamed', 10_000, 'the changed entry');
    assert.equal(running.daemon.workers[0], worker);
    assert.equal(worker.entry.limit, 1);
    assert.deepEqual(lines.filter((line) => line.msg === 'configuration reloaded').at(-1)?.changed, ['b-renamed reloadto']);
  });

  it('keeps the previous config when the new file does not parse, with one error line naming file, line and column', async () => {
    const running = await start(`concurrent = 2\n${entry('a', 'reloadtok-a')}`, () => ({ exitCode: 0 }));
    await replaceFile(`concurrent = 7\n[[runners]]\nname = = "x"\n`);
    await until(() => lines.some((line) => line.level === 50), 10_000, 'the error line');
    const errors = lines.filter((line) => line.level === 50);
    assert.equal(errors.length, 1);
    assert.match(errors[0].msg, new RegExp(`^config reload \\(file change\\) failed, keeping the previous configuration: ${file.replace(/[.]/g, '\\.')}:3:8: invalid TOML: `));
    assert.ok(!errors[0].msg.includes('\n'), 'one line');
    assert.equal(running.daemon.currentConfig.concurrent, 2);
    assert.equal(running.daemon.workers[0].entry.name, 'a');

    // Wrong types are refused the same way, every problem on the one line.
    await replaceFile(`concurrent = "many"\n${entry('a', 'reloadtok-a', '  limit = -1\n')}`);
    await until(() => lines.filter((line) => line.level === 50).length === 2, 10_000, 'the second error line');
    assert.match(lines.filter((line) => line.level === 50)[1].msg, /config\.toml:1:1: concurrent must be a whole number \(0 or more\); .*config\.toml:7:3: runners\[0\]\.limit must be a whole number/);
    assert.equal(running.daemon.currentConfig.concurrent, 2);

    // An emptied file is not taken as "no runners".
    await replaceFile('');
    await until(() => lines.filter((line) => line.level === 50).length === 3, 10_000, 'the third error line');
    assert.match(lines.filter((line) => line.level === 50)[2].msg, /no \[\[runners\]\] entry$/);
    assert.equal(running.daemon.workers.length, 1);

    // Fixed: applied.
    await replaceFile(`concurrent = 5\n${entry('a', 'reloadtok-a')}`);
    await until(() => running.daemon.currentConfig.concurrent === 5, 10_000, 'the fixed file');
  });

  it('reloads on SIGHUP (reload()) without a file watch, and serves /metrics once listen_address appears', async () => {
    const running = await start(`concurrent = 1\n${entry('a', 'reloadtok-a')}`, () => ({ exitCode: 0 }), false);
    await writeFile(file, `concurrent = 3\nlisten_address = "127.0.0.1:0"\n${entry('a', 'reloadtok-a')}`);
    await sleep(300);
    assert.equal(running.daemon.currentConfig.concurrent, 1, 'no watch: nothing happens by itself');
    assert.equal(running.statusAddress, null);
    assert.equal(await running.reload('SIGHUP'), 'applied');
    assert.equal(running.daemon.currentConfig.concurrent, 3);
    assert.match(running.statusAddress ?? '', /^127\.0\.0\.1:\d+$/);
    const metrics = await (await fetch(`http://${running.statusAddress}/metrics`)).text();
    assert.match(metrics, /^gitlab_runner_concurrent 3$/m);
  });
});
