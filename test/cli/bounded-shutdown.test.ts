import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { closeWithinBound, coordinatorCloseBoundMs } from '../../src/cli/commands/bounded-shutdown.ts';
import { recordingLogger } from '../helpers/recording-logger.ts';

/** Runs closeWithinBound in a process of its own (its exit is the point), printing the elapsed time and exit code. */
function runAlone(close: string, holdAfterClose: boolean): Promise<{ code: number | null; stdout: string; elapsedMs: number }> {
  const module = path.resolve(import.meta.dirname, '../../src/cli/commands/bounded-shutdown.js');
  const logger = path.resolve(import.meta.dirname, '../../src/shared/logger.js');
  const script = [
    `import { closeWithinBound } from ${JSON.stringify(module)};`,
    `import { createLogger } from ${JSON.stringify(logger)};`,
    holdAfterClose ? 'setInterval(() => undefined, 60_000);' : '',
    `await closeWithinBound(${close}, { closeBoundMs: 300, lingerMs: 300, logger: createLogger({ pretty: false }), exit: (code) => process.exit(code) });`,
  ].join('\n');
  const started = Date.now();
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, elapsedMs: Date.now() - started })));
}

describe('closing within a bound', () => {
  it('gives up on a close that hangs, exits with 1 and names what held the process', async () => {
    const { logger, lines } = recordingLogger();
    const exits: number[] = [];
    void closeWithinBound(() => new Promise<void>(() => undefined), { closeBoundMs: 50, lingerMs: 10_000, logger, exit: (code) => exits.push(code) });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(exits, [1]);
    assert.equal(lines[0]?.msg, 'closing did not finish within 50 ms; exiting');
    assert.ok(Array.isArray(lines[0]?.stillOpen));
  });

  it('does not interfere with a close that finishes in time', async () => {
    const { logger, lines } = recordingLogger();
    const exits: number[] = [];
    let closed = false;
    await closeWithinBound(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        closed = true;
      },
      { closeBoundMs: 100, lingerMs: 10_000, logger, exit: (code) => exits.push(code) },
    );
    assert.equal(closed, true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(exits, []);
    assert.deepEqual(lines, []);
  });

  it('passes on a failure to close', async () => {
    const { logger } = recordingLogger();
    await assert.rejects(closeWithinBound(() => Promise.reject(new Error('no')), { closeBoundMs: 100, lingerMs: 10_000, logger, exit: () => assert.fail('no exit') }), /no/);
  });

  it('lets a process that nothing holds end at once, and ends a held one after the linger with a warning', async () => {
    const free = await runAlone('async () => undefined', false);
    assert.equal(free.code, 0);
    assert.equal(free.stdout, '');
    const held = await runAlone('async () => undefined', true);
    assert.equal(held.code, 0);
    const warning = JSON.parse(held.stdout.trim()) as { msg: string; stillOpen: string[] };
    assert.equal(warning.msg, 'closed, but the process was still held 300 ms later; exiting');
    assert.ok(warning.stillOpen.includes('Timeout'), held.stdout);
    assert.ok(held.elapsedMs >= 300);
  });

  it('bounds a coordinator by twice its grace and ten seconds, its grace 5 s unless set', () => {
    assert.equal(coordinatorCloseBoundMs(1_000), 12_000);
    assert.equal(coordinatorCloseBoundMs(undefined), 20_000);
  });
});
