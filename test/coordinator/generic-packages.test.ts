import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { genericRefProblems } from '../../src/coordinator/services/packages/generic-packages.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

const digest = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest('hex');

describe('generic package registry', () => {
  let gantry: TestCoordinator;
  let maintainer: TestUser;
  let developer: TestUser;
  let reporter: TestUser;
  let guest: TestUser;
  let projectId: number;
  let publicId: number;

  /** A PUT as curl's --upload-file sends it: the raw bytes, no content type unless given. */
  const put = (url: string, body: Buffer | Readable, headers: Record<string, string> = {}) =>
    gantry.coordinator.app.inject({ method: 'PUT', url: `/api/v4${url}`, headers, payload: body });
  const get = (url: string, headers: Record<string, string> = {}) => gantry.coordinator.app.inject({ method: 'GET', url: `/api/v4${url}`, headers });
  const generic = (project: number, rest: string) => `/projects/${project}/packages/generic/${rest}`;

  before(async () => {
    gantry = await startTestCoordinator({ externalUrl: 'http://gantry.test', extra: { packageFileLimit: 1024 * 1024 } });
    [maintainer, developer, reporter, guest] = await Promise.all(['keeper', 'dev', 'rep', 'guest'].map((name) => makeUser(gantry, name)));
    const group = await makeGroup(gantry, 'acme');
    projectId = (await makeProject(gantry, group.id, 'tool')).id;
    publicId = (await makeProject(gantry, group.id, 'open', { visibility: 'public' })).id;
    for (const [user, level] of [[maintainer, 40], [developer, 30], [reporter, 20], [guest, 10]] as const) {
      await addMember(gantry, { type: 'project', id: projectId }, user.id, level);
      await addMember(gantry, { type: 'project', id: publicId }, user.id, level);
    }
  });
  after(() => gantry.close());

  it('uploads with checksums computed on the way and downloads the newest file of a name', async () => {
    const first = Buffer.from('first build\n');
    const created = await put(generic(projectId, 'my_pkg/1.0.0/bin.tar.gz'), first, { 'private-token': developer.token });
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual(created.json(), { message: '201 Created' });
    const second = Buffer.from('second build, same name\n');
    const selected = await put(`${generic(projectId, 'my_pkg/1.0.0/bin.tar.gz')}?select=package_file`, second, { 'private-token': developer.token, 'content-type': 'application/json' });
    assert.equal(selected.statusCode, 200, selected.body);
    const file = selected.json() as Record<string, unknown>;
    assert.deepEqual({ ...file, id: 0, package_id: 0, created_at: '' }, {
      id: 0, package_id: 0, created_at: '', file_name: 'bin.tar.gz', size: second.length,
      file_md5: digest('md5', second), file_sha1: null, file_sha256: digest('sha256', second),
    });
    const downloaded = await get(generic(projectId, 'my_pkg/1.0.0/bin.tar.gz'), { 'private-token': reporter.token });
    assert.equal(downloaded.statusCode, 200);
    assert.deepEqual(downloaded.rawPayload, second);
    assert.equal(downloaded.headers['x-checksum-sha256'], digest('sha256', second));
    assert.equal(downloaded.headers['content-disposition'], 'attachment; filename="bin.tar.gz"');
    // A text body is a file like any other: not parsed.
    const text = await put(generic(projectId, 'my_pkg/1.0.0/notes.txt'), Buffer.from('{"not": json'), { 'private-token': developer.token, 'content-type': 'text/plain' });
    assert.equal(text.statusCode, 201, text.body);
    assert.equal((await get(generic(projectId, 'my_pkg/1.0.0/notes.txt'), { 'private-token': reporter.token })).body, '{"not": json');
  });

  it('answers GitLab-shaped errors for bad names, missing packages and refused callers', async () => {
    const body = Buffer.from('x');
    const auth = { 'private-token': developer.token };
    assert.deepEqual((await put(generic(projectId, 'bad%20name/1.0/f'), body, auth)).json(), { error: 'package_name is invalid' });
    assert.deepEqual((await put(generic(projectId, 'pkg/1..0/f'), body, auth)).json(), { error: 'package_version is invalid' });
    // `..` never reaches the route (the router refuses the dot segment); the rule still stands behind it.
    assert.equal((await put(generic(projectId, 'pkg/1.0/%2E%2E'), body, auth)).statusCode, 404);
    assert.deepEqual(genericRefProblems({ packageName: '.', packageVersion: '1', fileName: '..' }), [
      { name: 'package_name', problem: 'should be a valid file path' },
      { name: 'file_name', problem: 'should be a valid file path' },
    ]);
    assert.deepEqual((await put(generic(projectId, 'pkg/1.0/a%2Fb'), body, auth)).json(), { error: 'file_name is invalid' });
    assert.deepEqual((await put(`${generic(projectId, 'pkg/1.0/f')}?status=gone`, body, auth)).json(), { error: 'status does not have a valid value' });
    assert.equal((await put(generic(projectId, 'pkg/1.0/f'), body, { 'private-token': reporter.token })).statusCode, 403);
    assert.equal((await put(generic(projectId, 'pkg/1.0/f'), body)).statusCode, 401);
    assert.equal((await put(generic(projectId, 'pkg/1.0/f'), body, { 'private-token': guest.token })).statusCode, 403);
    const read = { 'private-token': reporter.token };
    assert.deepEqual((await get(generic(projectId, 'nothing/1.0/f'), read)).json(), { message: '404 Package Not Found' });
    assert.deepEqual((await get(generic(projectId, 'my_pkg/1.0.0/other.bin'), read)).json(), { message: '404 Package file Not Found' });
    assert.equal((await get(generic(projectId, 'my_pkg/1.0.0/bin.tar.gz'), { 'private-token': guest.token })).statusCode, 403);
    assert.deepEqual((await get(generic(projectId, 'my_pkg/1.0.0/bin.tar.gz'))).json(), { message: '404 Project Not Found' }, 'anonymous: the private project is not found');
  });

  it('refuses a file over the limit while streaming, keeping nothing', async () => {
    const big = Readable.from((function* () {
      for (let i = 0; i < 20; i += 1) yield Buffer.alloc(64 * 1024, i);
    })());
    // Chunked, as curl sends a stream: no length is declared up front.
    const refused = await put(generic(projectId, 'big/1.0/blob.bin'), big, { 'private-token': developer.token, 'transfer-encoding': 'chunked' });
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(refused.json(), { message: '400 Bad request - File is too large' });
    assert.equal((await get(generic(projectId, 'big/1.0/blob.bin'), { 'private-token': developer.token })).statusCode, 404);
    const kept = readdirSync(path.join(gantry.dataDir, 'packages', String(projectId)));
    assert.equal(kept.length, 3, `only the three accepted files: ${kept.join(', ')}`);
    const declared = await put(generic(projectId, 'big/1.0/blob.bin'), Buffer.alloc(1024 * 1024 + 1), { 'private-token': developer.token });
    assert.deepEqual([declared.statusCode, declared.json()], [400, { message: '400 Bad request - File is too large' }]);
  });

  it('serves public packages anonymously, and lists, gets and deletes packages and files', async () => {
    assert.equal((await put(`${generic(publicId, 'cli/2.1.0/cli-linux')}`, Buffer.from('linux'), { 'private-token': developer.token })).statusCode, 201);
    assert.equal((await put(`${generic(publicId, 'cli/2.1.0/cli-mac')}`, Buffer.from('mac'), { 'private-token': developer.token })).statusCode, 201);
    assert.equal((await put(`${generic(publicId, 'secret/0.1/x')}?status=hidden`, Buffer.from('x'), { 'private-token': developer.token })).statusCode, 201);
    assert.equal((await get(generic(publicId, 'cli/2.1.0/cli-mac'))).body, 'mac');
    assert.equal((await get(generic(publicId, 'secret/0.1/x'))).body, 'x', 'a hidden package still downloads');

    const listed = await gantry.api('GET', `/projects/${publicId}/packages`, { token: null });
    assert.deepEqual(listed.list.map((entry) => [entry.name, entry.version, entry.package_type, entry.status]), [['cli', '2.1.0', 'generic', 'default']]);
    const cli = listed.list[0];
    assert.deepEqual(cli._links, { web_path: `/acme/open/-/packages/${cli.id}` });
    assert.deepEqual(cli.tags, []);
    const hidden = await gantry.api('GET', `/projects/${publicId}/packages?status=hidden`, { token: developer.token });
    assert.deepEqual(hidden.list.map((entry) => entry.name), ['secret']);
    assert.deepEqual((await gantry.api('GET', `/projects/${publicId}/packages?package_name=CL&package_type=generic&order_by=name&sort=desc`)).list.map((entry) => entry.name), ['cli']);
    assert.deepEqual((await gantry.api('GET', `/projects/${publicId}/packages?package_type=npm`)).list, []);
    assert.deepEqual((await gantry.api('GET', `/projects/${publicId}/packages?order_by=size`)).json, { error: 'order_by does not have a valid value' });

    const single = await gantry.api('GET', `/projects/${publicId}/packages/${cli.id}`, { token: maintainer.token });
    assert.equal(single.json.name, 'cli');
    assert.deepEqual(single.json._links, { web_path: `/acme/open/-/packages/${cli.id}`, delete_api_path: `http://gantry.test/api/v4/projects/${publicId}/packages/${cli.id}` });
    const files = await gantry.api('GET', `/projects/${publicId}/packages/${cli.id}/package_files`);
    assert.deepEqual(files.list.map((file) => [file.file_name, file.size, file.file_sha256]), [['cli-linux', 5, digest('sha256', Buffer.from('linux'))], ['cli-mac', 3, digest('sha256', Buffer.from('mac'))]]);
    assert.equal(files.headers['x-total'], '2');

    const fileUrl = `/projects/${publicId}/packages/${cli.id}/package_files/${files.list[1].id}`;
    assert.equal((await gantry.api('DELETE', fileUrl, { token: developer.token })).status, 403);
    assert.equal((await gantry.api('DELETE', fileUrl, { token: maintainer.token })).status, 204);
    assert.deepEqual((await gantry.api('DELETE', fileUrl, { token: maintainer.token })).json, { message: '404 Package file Not Found' });
    assert.equal((await get(generic(publicId, 'cli/2.1.0/cli-mac'))).statusCode, 404);

    assert.equal((await gantry.api('DELETE', `/projects/${publicId}/packages/${cli.id}`, { token: developer.token })).status, 403);
    assert.equal((await gantry.api('DELETE', `/projects/${publicId}/packages/${cli.id}`, { token: maintainer.token })).status, 204);
    assert.deepEqual((await gantry.api('GET', `/projects/${publicId}/packages/${cli.id}`)).json, { message: '404 Package Not Found' });
    assert.equal((await get(generic(publicId, 'cli/2.1.0/cli-linux'))).statusCode, 404);
    assert.equal(readdirSync(path.join(gantry.dataDir, 'packages', String(publicId))).length, 1, 'the hidden package file is all that is left');
  });

  it("removes a deleted project's package files", async () => {
    const doomed = (await makeProject(gantry, (await makeGroup(gantry, 'doomed')).id, 'gone')).id;
    assert.equal((await put(generic(doomed, 'p/1/f'), Buffer.from('bytes'), { 'private-token': gantry.rootToken })).statusCode, 201);
    const directory = path.join(gantry.dataDir, 'packages', String(doomed));
    assert.ok(existsSync(directory));
    assert.equal((await gantry.api('DELETE', `/projects/${doomed}`)).status, 202);
    assert.equal(existsSync(directory), false);
  });
});
