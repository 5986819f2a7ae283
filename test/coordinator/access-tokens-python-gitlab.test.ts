import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { drivePythonGitlab } from '../helpers/python-gitlab.ts';

type Json = Record<string, unknown>;

describe('project and group access tokens driven by python-gitlab', () => {
  let gantry: TestCoordinator;
  let workDir: string;

  before(async () => {
    gantry = await startTestCoordinator();
    workDir = await mkdtemp(path.join(tmpdir(), 'gantry-access-tokens-'));
  });
  after(async () => {
    await gantry.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it('creates a project token whose bot writes through the API and git, rotates and revokes it; manages a group token', async () => {
    const seen = await drivePythonGitlab(gantry, 'drive_access_tokens.py', [workDir]);
    const created = seen.created as Json;
    assert.deepEqual([created.scopes, created.access_level], [['api', 'write_repository'], 40]);
    assert.deepEqual(seen.listed, [[created.id, 'renovate', 40, true]]);
    assert.match(String(seen.bot_username), new RegExp(`^project_${String(seen.project_id)}_bot_[0-9a-f]{32}$`));
    assert.equal(seen.commit_author, 'renovate', 'the bot is named after its token');
    assert.deepEqual(seen.branches, ['main', 'pushed-by-bot', 'renovate/deps']);
    assert.equal((seen.rotated as Json).user_id, created.user_id);
    assert.deepEqual([seen.old_after_rotation, seen.new_after_rotation, seen.revoked_signs_in], [401, seen.bot_username, 401]);
    assert.deepEqual(seen.inactive, [created.id, (seen.rotated as Json).id]);
    assert.deepEqual(seen.group_listed, [['group-bot', 20]]);
    assert.equal(seen.group_revoked_signs_in, 401);
  });
});
