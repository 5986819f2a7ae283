import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { GitCommandError, runGit } from '../../../src/storage/git/run.ts';
import { within } from '../../helpers/bounded.ts';

/** Endless input: git must stop the run by exiting, not by reading it all. */
function endless(): Readable {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  return new Readable({ read() { this.push(chunk); } });
}

describe('runGit with streamed input', () => {
  it('answers with git\'s own failure when git exits before reading its input', async () => {
    const run = runGit(null, ['hash-object', '--no-such-option', '--stdin'], { input: endless() });
    await assert.rejects(within(run, 20_000, 'runGit waited for input git never read'), (error: unknown) => {
      assert.ok(error instanceof GitCommandError, String(error));
      assert.equal(error.exitCode, 129);
      return true;
    });
  });

  it('fails with the source\'s error when the input fails, whatever git made of the part it got', async () => {
    let sent = false;
    const failing = new Readable({
      read() {
        if (!sent) {
          sent = true;
          this.push('half of a blob');
        } else this.destroy(new Error('the source broke'));
      },
    });
    await assert.rejects(within(runGit(null, ['hash-object', '--stdin'], { input: failing }), 20_000, 'runGit never ended'), /the source broke/);
  });

  it('hashes a whole streamed input', async () => {
    const { stdout } = await runGit(null, ['hash-object', '--stdin'], { input: Readable.from([Buffer.from('hello\n')]) });
    assert.equal(stdout.toString().trim(), 'ce013625030ba8dba906f756967f9e9ca394464a');
  });
});
