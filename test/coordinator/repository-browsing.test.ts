import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { execFileSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { enc, startRepositoryFixture, type RepositoryFixture } from './repository-fixtures.ts';

/** Whether the bzip2 tool git archive needs for tar.bz2 is missing on this machine. */
function bunzip2Unavailable(): boolean {
  try {
    execFileSync('bzip2', ['--help'], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
}

describe('repository browsing API', () => {
  let fx: RepositoryFixture;
  let project: ProjectRecord;
  let publicProject: ProjectRecord;
  let empty: ProjectRecord;
  let seeded: Record<string, unknown>;
  let edited: Record<string, unknown>;
  let readmeBlob: string;
  const repo = (p: ProjectRecord, rest: string) => `/projects/${p.id}/repository/${rest}`;

  before(async () => {
    fx = await startRepositoryFixture();
    project = await fx.project('secret', { withReadme: true });
    publicProject = await fx.project('open', { visibility: 'public', withReadme: true });
    empty = await fx.project('blank');
    seeded = await fx.commit(project, {
      branch: 'main',
      commit_message: 'Seed tree',
      actions: [
        { action: 'create', file_path: 'src/app.ts', content: 'export const app = 1;\n' },
        { action: 'create', file_path: 'src/lib/util.ts', content: 'export {};\n' },
        { action: 'create', file_path: 'a dir/ünï.txt', content: 'x\n' },
        { action: 'create', file_path: 'bin.dat', content: Buffer.from([0, 1, 2]).toString('base64'), encoding: 'base64' },
      ],
    });
    edited = await fx.commit(
      project,
      { branch: 'main', commit_message: 'Edit app', actions: [{ action: 'update', file_path: 'src/app.ts', content: 'export const app = 2;\n' }] },
      fx.developer.token,
    );
    const readme = await fx.gantry.api('GET', `${repo(project, `files/README.md`)}?ref=main`);
    readmeBlob = String(readme.json.blob_id);
  });

  after(async () => {
    await fx?.close();
  });

  describe('GET /projects/:id/repository/tree', () => {
    it('lists the root with directories first and entry fields', async () => {
      const response = await fx.gantry.api('GET', repo(project, 'tree'));
      assert.equal(response.status, 200);
      assert.deepEqual(response.list.map((entry) => [entry.type, entry.name]), [
        ['tree', 'a dir'], ['tree', 'src'], ['blob', 'README.md'], ['blob', 'bin.dat'],
      ]);
      const src = response.list[1];
      assert.deepEqual(Object.keys(src), ['id', 'name', 'type', 'path', 'mode']);
      assert.equal(src.mode, '040000');
      assert.equal(response.list[2].mode, '100644');
      assert.equal(response.headers['x-total'], '4');
    });

    it('lists a subdirectory, recursively, and pages', async () => {
      const sub = await fx.gantry.api('GET', `${repo(project, 'tree')}?path=src&ref=main`);
      assert.deepEqual(sub.list.map((entry) => entry.path), ['src/lib', 'src/app.ts']);
      const recursive = await fx.gantry.api('GET', `${repo(project, 'tree')}?recursive=true&per_page=100`);
      const paths = recursive.list.map((entry) => entry.path);
      assert.ok(paths.includes('src/lib/util.ts'));
      assert.ok(paths.includes('a dir/ünï.txt'));
      const paged = await fx.gantry.api('GET', `${repo(project, 'tree')}?recursive=true&per_page=2&page=2`);
      assert.deepEqual(paged.list.map((entry) => entry.path), paths.slice(2, 4));
      assert.equal(paged.headers['x-prev-page'], '1');
      const old = await fx.gantry.api('GET', `${repo(project, 'tree')}?ref=${String(seeded.parent_ids && (seeded.parent_ids as string[])[0])}`);
      assert.deepEqual(old.list.map((entry) => entry.name), ['README.md']);
    });

    it('answers [] for a missing path and 404 Tree Not Found for unknown refs and empty repositories', async () => {
      assert.deepEqual((await fx.gantry.api('GET', `${repo(project, 'tree')}?path=nope`)).list, []);
      const traversal = await fx.gantry.api('GET', `${repo(project, 'tree')}?path=${enc('../..')}`);
      assert.deepEqual([traversal.status, traversal.body], [400, { error: 'path should be a valid file path' }]);
      assert.deepEqual((await fx.gantry.api('GET', `${repo(project, 'tree')}?ref=nope`)).body, { message: '404 Tree Not Found' });
      assert.deepEqual((await fx.gantry.api('GET', repo(empty, 'tree'))).body, { message: '404 Tree Not Found' });
    });

    it('applies read access', async () => {
      assert.equal((await fx.gantry.api('GET', repo(publicProject, 'tree'), { token: null })).status, 200);
      assert.equal((await fx.gantry.api('GET', repo(project, 'tree'), { token: null })).status, 404);
      assert.equal((await fx.gantry.api('GET', repo(project, 'tree'), { token: fx.guest.token })).status, 403);
    });
  });

  describe('GET /projects/:id/repository/blobs/:sha[/raw]', () => {
    it('answers a blob as Base64 JSON and raw', async () => {
      const blob = await fx.gantry.api('GET', repo(project, `blobs/${readmeBlob}`));
      assert.equal(blob.status, 200);
      assert.equal(blob.json.sha, readmeBlob);
      assert.equal(blob.json.encoding, 'base64');
      const content = Buffer.from(String(blob.json.content), 'base64');
      assert.equal(blob.json.size, content.length);
      assert.match(content.toString(), /secret/);
      const raw = await fx.raw(repo(project, `blobs/${readmeBlob}/raw`));
      assert.equal(raw.statusCode, 200);
      assert.deepEqual(raw.bytes, content);
      assert.match(String(raw.headers['content-type']), /^text\/plain/);
    });

    it('404s unknown blobs, non-blob objects and revision expressions', async () => {
      for (const sha of ['f'.repeat(40), String(edited.id), enc('main:README.md'), 'HEAD']) {
        const response = await fx.gantry.api('GET', repo(project, `blobs/${sha}`));
        assert.deepEqual(response.body, { message: '404 Blob Not Found' }, sha);
        assert.equal((await fx.raw(repo(project, `blobs/${sha}/raw`))).statusCode, 404);
      }
      assert.equal((await fx.gantry.api('GET', repo(project, `blobs/${readmeBlob}`), { token: fx.stranger.token })).status, 404);
    });
  });

  describe('GET /projects/:id/repository/archive', () => {
    it('streams a tar.gz of the default branch named <project>-<ref>-<sha>', async () => {
      const response = await fx.raw(repo(project, 'archive'));
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-disposition'], `attachment; filename="secret-main-${String(edited.id)}.tar.gz"`);
      const tar = gunzipSync(response.bytes);
      assert.equal(tar.subarray(257, 262).toString(), 'ustar');
      assert.ok(tar.includes(Buffer.from(`secret-main-${String(edited.id)}/src/app.ts`)));
    });

    it('honours the suffix, the format parameter and sha', async () => {
      const zip = await fx.raw(`${repo(project, 'archive.zip')}?sha=${String(seeded.id)}`);
      assert.equal(zip.statusCode, 200);
      assert.equal(zip.headers['content-type'], 'application/zip');
      assert.equal(zip.bytes.subarray(0, 2).toString(), 'PK');
      assert.match(String(zip.headers['content-disposition']), new RegExp(`secret-${String(seeded.id)}-${String(seeded.id)}\\.zip`));
      const suffixed = await fx.raw(repo(project, 'archive.tar.gz'));
      assert.match(String(suffixed.headers['content-disposition']), /\.tar\.gz"$/);
      assert.equal(gunzipSync(suffixed.bytes).subarray(257, 262).toString(), 'ustar');
      const tar = await fx.raw(`${repo(project, 'archive')}?format=tar&sha=${enc('main')}`);
      assert.equal(tar.bytes.subarray(257, 262).toString(), 'ustar');
      assert.match(String(tar.headers['content-disposition']), /\.tar"$/);
      if (!bunzip2Unavailable()) {
        const bz2 = await fx.raw(repo(project, 'archive.tar.bz2'));
        assert.equal(bz2.bytes.subarray(0, 3).toString(), 'BZh');
      }
    });

    it('answers 404 for unknown refs and empty repositories, 400 for unknown formats', async () => {
      assert.equal((await fx.raw(`${repo(project, 'archive')}?sha=nope`)).statusCode, 404);
      assert.equal((await fx.raw(repo(empty, 'archive'))).statusCode, 404);
      assert.equal((await fx.raw(`${repo(project, 'archive')}?format=rar`)).statusCode, 400);
      assert.equal((await fx.raw(repo(project, 'archive'), null)).statusCode, 404);
      assert.equal((await fx.raw(repo(publicProject, 'archive.zip'), null)).statusCode, 200);
    });
  });

  describe('GET /projects/:id/repository/compare', () => {
    it('compares two refs: commits oldest first, commit is the newest, diffs', async () => {
      const initial = (seeded.parent_ids as string[])[0];
      const response = await fx.gantry.api('GET', `${repo(project, 'compare')}?from=${initial}&to=main`);
      assert.equal(response.status, 200);
      const commits = response.json.commits as Array<Record<string, unknown>>;
      assert.deepEqual(commits.map((commit) => commit.id), [seeded.id, edited.id]);
      assert.equal((response.json.commit as Record<string, unknown>).id, edited.id);
      const diffs = response.json.diffs as Array<Record<string, unknown>>;
      assert.deepEqual(diffs.map((diff) => diff.new_path).sort(), ['a dir/ünï.txt', 'bin.dat', 'src/app.ts', 'src/lib/util.ts']);
      assert.equal(response.json.compare_timeout, false);
      assert.equal(response.json.compare_same_ref, false);
    });

    it('answers an empty comparison for the same ref', async () => {
      const response = await fx.gantry.api('GET', `${repo(project, 'compare')}?from=main&to=main`);
      assert.deepEqual(response.json, { commit: null, commits: [], diffs: [], compare_timeout: false, overflow: false, compare_same_ref: true });
    });

    it('validates from/to', async () => {
      assert.deepEqual((await fx.gantry.api('GET', `${repo(project, 'compare')}?to=main`)).body, { error: 'from is missing' });
      assert.deepEqual((await fx.gantry.api('GET', `${repo(project, 'compare')}?from=main`)).body, { error: 'to is missing' });
      assert.deepEqual((await fx.gantry.api('GET', `${repo(project, 'compare')}?from=main&to=nope`)).body, { message: '404 Ref Not Found' });
      assert.equal((await fx.gantry.api('GET', `${repo(empty, 'compare')}?from=a&to=b`)).status, 404);
    });
  });

  describe('GET /projects/:id/repository/merge_base', () => {
    it('finds the common ancestor of refs, and refuses fewer than two or unknown ones', async () => {
      const branch = await fx.gantry.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'side/one', ref: String(seeded.id) } });
      assert.equal(branch.status, 201, branch.text);
      await fx.commit(project, { branch: 'side/one', commit_message: 'Side work', actions: [{ action: 'create', file_path: 'side.txt', content: 's\n' }] });
      const base = await fx.gantry.api('GET', `${repo(project, 'merge_base')}?refs[]=main&refs[]=${enc('side/one')}`);
      assert.equal(base.status, 200);
      assert.equal(base.json.id, seeded.id);
      assert.equal(base.json.title, 'Seed tree');
      const fewer = await fx.gantry.api('GET', `${repo(project, 'merge_base')}?refs[]=main`);
      assert.deepEqual([fewer.status, fewer.body], [400, { message: 'Provide at least 2 refs' }]);
      assert.deepEqual((await fx.gantry.api('GET', `${repo(project, 'merge_base')}?refs[]=main&refs[]=nope`)).body, { message: 'Could not find ref: nope' });
      assert.deepEqual((await fx.gantry.api('GET', `${repo(empty, 'merge_base')}?refs[]=a&refs[]=b`)).body, { message: 'Could not find refs: a, b' });
      assert.equal((await fx.gantry.api('GET', `${repo(project, 'merge_base')}?refs[]=main&refs[]=main`, { token: null })).status, 404);
    });
  });

  describe('GET /projects/:id/repository/contributors', () => {
    it('counts commits per author and sorts on request', async () => {
      const response = await fx.gantry.api('GET', repo(project, 'contributors'));
      assert.equal(response.status, 200);
      const admin = response.list.find((contributor) => contributor.email === 'admin@example.com');
      assert.equal(admin?.commits, 2);
      assert.deepEqual(Object.keys(admin ?? {}), ['name', 'email', 'commits', 'additions', 'deletions']);
      const developer = response.list.find((contributor) => contributor.email === `${fx.developer.username}@example.com`);
      assert.equal(developer?.commits, 1);
      const byNameDesc = await fx.gantry.api('GET', `${repo(project, 'contributors')}?order_by=name&sort=desc`);
      const names = byNameDesc.list.map((contributor) => String(contributor.name));
      assert.deepEqual(names, [...names].sort().reverse());
      const byCommits = await fx.gantry.api('GET', `${repo(project, 'contributors')}?order_by=commits`);
      assert.deepEqual(byCommits.list.map((contributor) => contributor.commits), [1, 2]);
      assert.equal(byCommits.headers['x-total'], '2');
    });

    it('validates order_by/sort and answers [] for an empty repository', async () => {
      assert.deepEqual((await fx.gantry.api('GET', `${repo(project, 'contributors')}?order_by=size`)).body, { error: 'order_by does not have a valid value' });
      assert.deepEqual((await fx.gantry.api('GET', `${repo(project, 'contributors')}?sort=up`)).body, { error: 'sort does not have a valid value' });
      assert.deepEqual((await fx.gantry.api('GET', repo(empty, 'contributors'))).list, []);
      assert.equal((await fx.gantry.api('GET', repo(project, 'contributors'), { token: fx.stranger.token })).status, 404);
    });
  });
});
