import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AvatarFiles } from '../../src/coordinator/services/accounts/avatars.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { FsUploadBlobs } from '../../src/storage/fs/uploads.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeUser } from './groups-fixtures.ts';
import { GIF, PNG, sendMultipart } from './uploads-fixtures.ts';

/** Avatar files go with what no row names any more: a replaced avatar, a deleted user, group or project. */
describe('avatar files on disk', () => {
  let gantry: TestCoordinator;
  const avatarDirectory = (owner: string, id: number): string => path.join(gantry.dataDir, 'uploads', 'system', owner, 'avatar', String(id));
  const withAvatar = async (method: 'POST' | 'PUT', url: string, fields: Record<string, string>, name = 'a.png') => {
    const answer = await sendMultipart(gantry, method, url, { fields, files: [{ field: 'avatar', name, content: PNG }] });
    assert.ok(answer.status === 200 || answer.status === 201, JSON.stringify(answer.json));
    return answer.json.id as number;
  };

  before(async () => {
    gantry = await startTestCoordinator();
  });
  after(() => gantry.close());

  it('keeps only the current avatar once one is replaced', async () => {
    const user = await makeUser(gantry, 'replacing');
    await withAvatar('PUT', `/users/${user.id}`, {}, 'first.png');
    const replaced = await sendMultipart(gantry, 'PUT', `/users/${user.id}`, { files: [{ field: 'avatar', name: 'second.gif', content: GIF }] });
    assert.equal(replaced.status, 200);
    assert.deepEqual(readdirSync(avatarDirectory('user', user.id)), ['second.gif']);
  });

  it('removes a deleted user\'s avatar', async () => {
    const user = await makeUser(gantry, 'leaving');
    await withAvatar('PUT', `/users/${user.id}`, {});
    assert.ok(existsSync(avatarDirectory('user', user.id)));
    assert.equal((await gantry.api('DELETE', `/users/${user.id}`)).status, 204);
    assert.equal(existsSync(avatarDirectory('user', user.id)), false);
  });

  it('removes a deleted project\'s avatar', async () => {
    const projectId = await withAvatar('POST', '/projects', { name: 'Pictured' });
    assert.ok(existsSync(avatarDirectory('project', projectId)));
    assert.equal((await gantry.api('DELETE', `/projects/${projectId}`)).status, 202);
    assert.equal(existsSync(avatarDirectory('project', projectId)), false);
  });

  it('removes the avatars of a deleted group, its subgroups and their projects', async () => {
    const groupId = await withAvatar('POST', '/groups', { name: 'Gallery', path: 'gallery' });
    const subgroupId = await withAvatar('POST', '/groups', { name: 'Wing', path: 'wing', parent_id: String(groupId) });
    const projectId = await withAvatar('POST', '/projects', { name: 'Exhibit', namespace_id: String(subgroupId) });
    const directories = [avatarDirectory('group', groupId), avatarDirectory('group', subgroupId), avatarDirectory('project', projectId)];
    for (const directory of directories) assert.ok(existsSync(directory), directory);
    assert.equal((await gantry.api('DELETE', `/groups/${groupId}`)).status, 202);
    for (const directory of directories) assert.equal(existsSync(directory), false, directory);
  });

  it('logs a failure to remove avatar files and does not throw', async () => {
    const lines: string[] = [];
    const logger = createLogger({ pretty: false, destination: { write: (line: string) => lines.push(line) } });
    const root = path.join(gantry.dataDir, 'broken-uploads');
    // Where the avatar directory should be, a file: listing it fails (ENOTDIR).
    mkdirSync(path.join(root, 'system', 'user', 'avatar'), { recursive: true });
    writeFileSync(path.join(root, 'system', 'user', 'avatar', '7'), 'not a directory');
    const files = new AvatarFiles({ blobs: new FsUploadBlobs(root), logger });
    await files.removeReplaced('user', 7, 'current.png');
    const warning = lines.map((line) => JSON.parse(line) as { msg: string; owner: string; id: number; level: number }).find((line) => line.msg === 'removing avatar files failed');
    assert.ok(warning, lines.join('\n'));
    assert.deepEqual([warning.owner, warning.id, warning.level], ['user', 7, 40]);
  });
});
