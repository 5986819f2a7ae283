import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { testDatabase } from '../../helpers/database.ts';
import { scriptArgs } from '../../helpers/script-args.ts';

const run = promisify(execFile);

describe('the SQL storage without code generation from strings', () => {
  let database: { url: string; drop(): Promise<void> };
  before(async () => {
    // Empty, so the child really migrates under the flag.
    database = await testDatabase({ fresh: true });
  });
  after(() => database.drop());

  it('migrates, writes and reads rows under node --disallow-code-generation-from-strings', async () => {
    const child = path.join(import.meta.dirname, 'no-code-generation-child.ts');
    const { stdout } = await run(process.execPath, ['--disallow-code-generation-from-strings', ...scriptArgs(child), database.url], { timeout: 120_000 });
    const read = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    assert.equal(read.codeGeneration, 'EvalError', 'the child runs with code generation turned off');
    assert.deepEqual(read.user, { username: 'coder', is_admin: true, external: false });
    assert.deepEqual(read.group, { path: 'tools', lfs_enabled: true, request_access_enabled: true });
  });
});
