import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { enc, startRepositoryFixture, type RepositoryFixture } from './repository-fixtures.ts';

const BINARY = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff, 0xfe]);
const UNICODE_PATH = 'docs/naïve café/日本語 file.txt';

describe('repository files API', () => {
  let fx: RepositoryFixture;
  let project: ProjectRecord;
  let publicProject: ProjectRecord;
  let empty: ProjectRecord;
  let base: Record<string, unknown>;
  const filesUrl = (p: ProjectRecord, filePath: string) => `/projects/${p.id}/repository/files/${enc(filePath)}`;

  before(async () => {
    fx = await startRepositoryFixture();
    project = await fx.project('secret', { withReadme: true });
    publicProject = await fx.project('open', { visibility: 'public', withReadme: true });
    empty = await fx.project('blank');
    base = await fx.commit(project, {
      branch: 'main',
      commit_message: 'Seed files',
      actions: [
        { action: 'create', file_path: UNICODE_PATH, content: 'unicode content\n' },
        { action: 'create', file_path: 'img/logo.png', content: BINARY.toString('base64'), encoding: 'base64' },
        { action: 'create', file_path: 'script.sh', content: '#!/bin/sh\necho hi\n', execute_filemode: true },
      ],
    });
    await fx.commit(project, { branch: 'release/1.0', start_branch: 'main', commit_message: 'Release', actions: [{ action: 'update', file_path: 'README.md', content: 'release\n' }] });
  });

  after(async () => {
    await fx?.close();
  });

  describe('GET /projects/:id/repository/files/:file_path', () => {
    it('answers the file with Base64 content, hashes and commit ids', async () => {
      const response = await fx.gantry.api('GET', `${filesUrl(project, UNICODE_PATH)}?ref=main`);
      assert.equal(response.status, 200);
      const content = Buffer.from('unicode content\n');
      assert.deepEqual(Object.keys(response.json), [
        'file_name', 'file_path', 'size', 'encoding', 'content_sha256', 'ref', 'blob_id', 'commit_id', 'last_commit_id', 'content',
      ]);
      assert.equal(response.json.file_name, '日本語 file.txt');
      assert.equal(response.json.file_path, UNICODE_PATH);
      assert.equal(response.json.size, content.length);
      assert.equal(response.json.encoding, 'base64');
      assert.equal(Buffer.from(String(response.json.content), 'base64').toString(), 'unicode content\n');
      assert.equal(response.json.content_sha256, createHash('sha256').update(content).digest('hex'));
      assert.equal(response.json.ref, 'main');
      assert.match(String(response.json.blob_id), /^[0-9a-f]{40}$/);
      assert.equal(response.json.last_commit_id, base.id);
      assert.equal(response.json.commit_id, base.id);
    });

    it('sets X-Gitlab-* headers, also on HEAD', async () => {
      const head = await fx.gantry.coordinator.app.inject({
        method: 'HEAD',
        url: `/api/v4${filesUrl(project, 'README.md')}?ref=main`,
        headers: { 'private-token': fx.gantry.rootToken },
      });
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers['x-gitlab-file-name'], 'README.md');
      assert.equal(head.headers['x-gitlab-ref'], 'main');
      assert.match(String(head.headers['x-gitlab-blob-id']), /^[0-9a-f]{40}$/);
      assert.match(String(head.headers['x-gitlab-content-sha256']), /^[0-9a-f]{64}$/);
    });

    it('reads at a branch with a slash, a tag-like SHA and an older commit', async () => {
      const release = await fx.gantry.api('GET', `${filesUrl(project, 'README.md')}?ref=${enc('release/1.0')}`);
      assert.equal(Buffer.from(String(release.json.content), 'base64').toString(), 'release\n');
      const atBase = await fx.gantry.api('GET', `${filesUrl(project, 'README.md')}?ref=${String(base.id)}`);
      assert.equal(atBase.json.commit_id, base.id);
      assert.notEqual(Buffer.from(String(atBase.json.content), 'base64').toString(), 'release\n');
    });

    it('answers 400 without ref, 404 for unknown refs, files and empty repositories', async () => {
      assert.deepEqual((await fx.gantry.api('GET', filesUrl(project, 'README.md'))).body, { error: 'ref is missing' });
      assert.deepEqual((await fx.gantry.api('GET', `${filesUrl(project, 'README.md')}?ref=nope`)).body, { message: '404 Commit Not Found' });
      assert.deepEqual((await fx.gantry.api('GET', `${filesUrl(project, 'missing.txt')}?ref=main`)).body, { message: '404 File Not Found' });
      assert.deepEqual((await fx.gantry.api('GET', `${filesUrl(project, 'docs')}?ref=main`)).body, { message: '404 File Not Found' });
      assert.deepEqual((await fx.gantry.api('GET', `${filesUrl(empty, 'README.md')}?ref=main`)).body, { message: '404 Commit Not Found' });
      const traversal = await fx.gantry.api('GET', `${filesUrl(project, '../../etc/passwd')}?ref=main`);
      assert.deepEqual([traversal.status, traversal.body], [400, { error: 'file_path should be a valid file path' }]);
      const rawTraversal = await fx.gantry.api('GET', `${filesUrl(project, 'docs/../../x')}/raw?ref=main`);
      assert.deepEqual([rawTraversal.status, rawTraversal.body], [400, { error: 'file_path should be a valid file path' }]);
    });

    it('applies read access', async () => {
      const url = `${filesUrl(project, 'README.md')}?ref=main`;
      assert.deepEqual((await fx.gantry.api('GET', url, { token: null })).body, { message: '404 Project Not Found' });
      assert.equal((await fx.gantry.api('GET', url, { token: fx.stranger.token })).status, 404);
      assert.equal((await fx.gantry.api('GET', url, { token: fx.guest.token })).status, 403);
      assert.equal((await fx.gantry.api('GET', url, { token: fx.reporter.token })).status, 200);
      assert.equal((await fx.gantry.api('GET', `${filesUrl(publicProject, 'README.md')}?ref=main`, { token: null })).status, 200);
      assert.equal((await fx.gantry.api('GET', url, { token: 'wrong-token' })).status, 401);
    });
  });

  describe('GET /projects/:id/repository/files/:file_path/raw', () => {
    it('streams text as text/plain and binary bytes untouched', async () => {
      const text = await fx.raw(`${filesUrl(project, UNICODE_PATH)}/raw?ref=main`);
      assert.equal(text.statusCode, 200);
      assert.match(String(text.headers['content-type']), /^text\/plain; charset=utf-8/);
      assert.equal(text.bytes.toString(), 'unicode content\n');
      const binary = await fx.raw(`${filesUrl(project, 'img/logo.png')}/raw?ref=main`);
      assert.equal(binary.statusCode, 200);
      assert.equal(binary.headers['content-type'], 'application/octet-stream');
      assert.deepEqual(binary.bytes, BINARY);
      assert.equal(binary.headers['content-length'], String(BINARY.length));
      assert.match(String(binary.headers['content-disposition']), /^attachment; filename="logo.png"/);
    });

    it('answers 400/404 like the JSON form', async () => {
      assert.equal((await fx.raw(`${filesUrl(project, 'README.md')}/raw`)).statusCode, 400);
      assert.equal((await fx.raw(`${filesUrl(project, 'nope')}/raw?ref=main`)).statusCode, 404);
      assert.equal((await fx.raw(`${filesUrl(project, 'README.md')}/raw?ref=main`, null)).statusCode, 404);
      assert.equal((await fx.raw(`${filesUrl(publicProject, 'README.md')}/raw?ref=main`, null)).statusCode, 200);
    });
  });

  describe('GET /projects/:id/repository/files/:file_path/blame', () => {
    it('groups lines by the commit that last changed them, with an optional line range', async () => {
      const first = await fx.commit(project, { branch: 'blame', start_branch: 'main', commit_message: 'Three lines', actions: [{ action: 'create', file_path: 'dir/poem.txt', content: 'one\ntwo\nthree\n' }] });
      const second = await fx.commit(
        project,
        { branch: 'blame', commit_message: 'Second line', actions: [{ action: 'update', file_path: 'dir/poem.txt', content: 'one\nTWO\nthree\n' }] },
        fx.developer.token,
      );
      const blame = await fx.gantry.api('GET', `${filesUrl(project, 'dir/poem.txt')}/blame?ref=blame`);
      assert.equal(blame.status, 200);
      assert.deepEqual(blame.list.map((run) => [(run.commit as { id: string }).id, run.lines]), [
        [first.id, ['one']], [second.id, ['TWO']], [first.id, ['three']],
      ]);
      const commit = blame.list[1]!.commit as Record<string, unknown>;
      assert.equal(commit.message, 'Second line');
      assert.equal(commit.author_email, `${fx.developer.username}@example.com`);
      const ranged = await fx.gantry.api('GET', `${filesUrl(project, 'dir/poem.txt')}/blame?ref=blame&range[start]=2&range[end]=3`);
      assert.deepEqual(ranged.list.map((run) => run.lines), [['TWO'], ['three']]);
    });

    it('answers 400 and 404 like the other file routes', async () => {
      const url = `${filesUrl(project, 'dir/poem.txt')}/blame`;
      assert.deepEqual((await fx.gantry.api('GET', url)).body, { error: 'ref is missing' });
      assert.deepEqual((await fx.gantry.api('GET', `${url}?ref=nope`)).body, { message: '404 Commit Not Found' });
      assert.deepEqual((await fx.gantry.api('GET', `${filesUrl(project, 'missing.txt')}/blame?ref=blame`)).body, { message: '404 File Not Found' });
      assert.deepEqual((await fx.gantry.api('GET', `${filesUrl(project, 'dir')}/blame?ref=blame`)).body, { message: '404 File Not Found' });
      assert.equal((await fx.gantry.api('GET', `${filesUrl(project, '../x')}/blame?ref=blame`)).status, 400);
      assert.equal((await fx.gantry.api('GET', `${url}?ref=blame&range[start]=3&range[end]=1`)).status, 400);
      assert.equal((await fx.gantry.api('GET', `${url}?ref=blame`, { token: fx.stranger.token })).status, 404);
    });
  });

  describe('POST, PUT and DELETE /projects/:id/repository/files/:file_path', () => {
    it('creates, updates and deletes a file with a space in its path, publishing pushes', async () => {
      const url = filesUrl(project, 'notes/my notes.txt');
      const created = await fx.gantry.api('POST', url, { form: { branch: 'main', content: 'v1\n', commit_message: 'Add notes' }, token: fx.developer.token });
      assert.equal(created.status, 201);
      assert.deepEqual(created.json, { file_name: 'notes/my notes.txt', file_path: 'notes/my notes.txt', branch: 'main' });
      const pushed = fx.pushEvents.at(-1);
      assert.equal(pushed?.ref, 'refs/heads/main');
      assert.equal(pushed?.user_id, fx.developer.id);

      const current = await fx.gantry.api('GET', `${url}?ref=main`);
      const updated = await fx.gantry.api('PUT', url, {
        body: { branch: 'main', content: Buffer.from('v2\n').toString('base64'), encoding: 'base64', commit_message: 'Update notes', last_commit_id: current.json.last_commit_id },
      });
      assert.equal(updated.status, 200);
      assert.deepEqual(updated.json, { file_name: 'notes/my notes.txt', file_path: 'notes/my notes.txt', branch: 'main' });
      const reread = await fx.gantry.api('GET', `${url}?ref=main`);
      assert.equal(Buffer.from(String(reread.json.content), 'base64').toString(), 'v2\n');

      const deleted = await fx.gantry.api('DELETE', url, { form: { branch: 'main', commit_message: 'Remove notes' } });
      assert.equal(deleted.status, 204);
      assert.equal(deleted.text, '');
      assert.equal((await fx.gantry.api('GET', `${url}?ref=main`)).status, 404);
    });

    it('creates a branch from start_branch', async () => {
      const created = await fx.gantry.api('POST', filesUrl(project, 'branch.txt'), { form: { branch: 'topic/new', start_branch: 'main', content: 'x', commit_message: 'Topic' } });
      assert.equal(created.status, 201);
      assert.equal((await fx.gantry.api('GET', `${filesUrl(project, 'branch.txt')}?ref=${enc('topic/new')}`)).status, 200);
      assert.equal((await fx.gantry.api('GET', `${filesUrl(project, 'branch.txt')}?ref=main`)).status, 404);
    });

    it('answers 400 with a message for the failures GitLab reports', async () => {
      const post = (filePath: string, form: Record<string, string>) => fx.gantry.api('POST', filesUrl(project, filePath), { form });
      const put = (filePath: string, form: Record<string, string>) => fx.gantry.api('PUT', filesUrl(project, filePath), { form });
      const exists = await post('README.md', { branch: 'main', content: 'x', commit_message: 'm' });
      assert.equal(exists.status, 400);
      assert.equal(exists.json.message, 'A file with this name already exists');
      const traversal = await post('a/../../b.txt', { branch: 'main', content: 'x', commit_message: 'm' });
      assert.equal(traversal.status, 400);
      assert.equal(typeof traversal.json.message, 'string');
      const readme = await fx.gantry.api('GET', `${filesUrl(project, 'README.md')}?ref=main`);
      const identical = await put('README.md', { branch: 'main', content: Buffer.from(String(readme.json.content), 'base64').toString(), commit_message: 'm' });
      assert.equal(identical.status, 400);
      assert.match(String(identical.json.message), /identical/);
      const stale = await put('README.md', { branch: 'main', content: 'changed\n', commit_message: 'm', last_commit_id: 'f'.repeat(40) });
      assert.equal(stale.status, 400);
      const missing = await put('nope.txt', { branch: 'main', content: 'x', commit_message: 'm' });
      assert.equal(missing.status, 400);
      const deleteMissing = await fx.gantry.api('DELETE', filesUrl(project, 'nope.txt'), { form: { branch: 'main', commit_message: 'm' } });
      assert.equal(deleteMissing.status, 400);
    });

    it('validates parameters', async () => {
      const url = filesUrl(project, 'v.txt');
      assert.deepEqual((await fx.gantry.api('POST', url, { form: { content: 'x', commit_message: 'm' } })).body, { error: 'branch is missing' });
      assert.deepEqual((await fx.gantry.api('POST', url, { form: { branch: 'main', commit_message: 'm' } })).body, { error: 'content is missing' });
      assert.deepEqual((await fx.gantry.api('POST', url, { form: { branch: 'main', content: 'x' } })).body, { error: 'commit_message is missing' });
      assert.deepEqual((await fx.gantry.api('POST', url, { form: { branch: 'main', content: 'x', commit_message: 'm', encoding: 'hex' } })).body, {
        error: 'encoding does not have a valid value',
      });
      assert.deepEqual((await fx.gantry.api('DELETE', url, { form: { branch: 'main' } })).body, { error: 'commit_message is missing' });
    });

    it('applies write access', async () => {
      const form = { branch: 'main', content: 'x', commit_message: 'm' };
      assert.equal((await fx.gantry.api('POST', filesUrl(project, 'w1.txt'), { form, token: null })).status, 401);
      assert.equal((await fx.gantry.api('POST', filesUrl(project, 'w1.txt'), { form, token: fx.stranger.token })).status, 404);
      assert.equal((await fx.gantry.api('POST', filesUrl(project, 'w1.txt'), { form, token: fx.guest.token })).status, 403);
      assert.equal((await fx.gantry.api('POST', filesUrl(publicProject, 'w1.txt'), { form, token: fx.reporter.token })).status, 403);
      assert.equal((await fx.gantry.api('DELETE', filesUrl(project, 'README.md'), { form, token: fx.guest.token })).status, 403);
    });

    it('writes the first file of an empty repository', async () => {
      const created = await fx.gantry.api('POST', filesUrl(empty, 'first.txt'), { form: { branch: 'main', content: 'first', commit_message: 'First' } });
      assert.equal(created.status, 201);
      const file = await fx.gantry.api('GET', `${filesUrl(empty, 'first.txt')}?ref=main`);
      assert.equal(file.status, 200);
      assert.equal(file.json.commit_id, file.json.last_commit_id);
    });
  });
});
