import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { drivePythonGitlab } from '../helpers/python-gitlab.ts';

/**
 * The generic package registry as python-gitlab (Debian's python3-gitlab 3.12) drives it,
 * unmodified, over a real port: test/fixtures/python-gitlab/drive_generic_packages.py uploads
 * with `project.generic_packages.upload`, downloads, lists and deletes.
 */
describe('generic packages through python-gitlab', () => {
  let gantry: TestCoordinator;
  let work: string;
  let seen: Record<string, unknown>;

  before(async () => {
    gantry = await startTestCoordinator();
    work = mkdtempSync(path.join(tmpdir(), 'gantry-packages-'));
    seen = await drivePythonGitlab(gantry, 'drive_generic_packages.py', [work]);
  });
  after(async () => {
    await gantry.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('uploads and downloads a file, the newest of a name winning', () => {
    assert.equal(seen.upload_message, '201 Created');
    assert.equal(seen.download_matches, true);
    assert.equal(seen.newest_served, true);
  });

  it('lists the package and its files with their checksums, and deletes it', () => {
    assert.deepEqual(seen.packages, [['tool', '1.2.3', 'generic']]);
    assert.deepEqual(seen.files, [['tool.bin', 300_000, true], ['tool.bin', 6, false]]);
    assert.equal(seen.md5_first, true);
    assert.equal(seen.after_delete, 0);
    assert.equal(seen.download_after_delete, 404);
  });
});
