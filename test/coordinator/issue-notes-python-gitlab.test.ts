import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from '#deps/execa';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

/** Notes on issues as python-gitlab (Debian's python3-gitlab) drives them, through test/fixtures/python-gitlab/notes.py. */
describe('notes on issues through python-gitlab', () => {
  let gantry: TestCoordinator;
  let seen: Record<string, unknown>;

  before(async () => {
    gantry = await startTestCoordinator();
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = gantry.coordinator.app.server.address() as AddressInfo;
    const script = path.join(import.meta.dirname, '../fixtures/python-gitlab/notes.py');
    const run = await execa('/usr/bin/python3', [script, `http://127.0.0.1:${port}`, gantry.rootToken], { reject: false, timeout: 120_000 });
    assert.equal(run.exitCode, 0, run.stderr);
    seen = JSON.parse(run.stdout) as Record<string, unknown>;
  });
  after(() => gantry.close());

  it('comments, lists every page (system notes included), edits and deletes', () => {
    assert.deepEqual(seen.created, ['Seen it too', false, 1, 'root']);
    const labelNote = (seen.bodies as string[]).find((body) => body.startsWith('removed ~'));
    assert.deepEqual(seen.bodies, ['Seen it too', 'Note 2', 'Note 3', 'Note 4', 'closed', labelNote]);
    assert.match(labelNote ?? '', /^removed ~\d+ label$/);
    assert.equal(seen.edited, 'Seen it too, edited');
    assert.deepEqual(seen.deleted, [404, '404 Note Not Found']);
    assert.equal(seen.user_notes_count, 3);
  });
});
