import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { JobTokenVerifier } from '../../src/coordinator/services/repository/git-http/job-tokens.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

const ZERO = '0'.repeat(40);

/** A CI stand-in: `job-token-<user id>-<project id>` is valid. */
const jobTokens: JobTokenVerifier = {
  async verify(token) {
    const match = /^job-token-(\d+)-(\d+)$/.exec(token);
    return match ? { userId: Number(match[1]), projectId: Number(match[2]) } : null;
  },
};

describe('git over HTTP: clone, fetch, push and access', () => {
  let fixture: GitHttpFixture;
  let developer: TestUser;
  let reporter: TestUser;
  let guest: TestUser;
  let stranger: TestUser;
  let privateProject: ProjectRecord;
  let publicProject: ProjectRecord;
  let internalProject: ProjectRecord;
  let emptyProject: ProjectRecord;
  const basic = (user: string, secret: string): string => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;
  const as = (user: TestUser): { user: string; secret: string } => ({ user: user.username, secret: user.token });
  const revParse = async (cwd: string, revision: string): Promise<string> => (await fixture.git(['rev-parse', revision], { cwd })).stdout.trim();

  before(async () => {
    fixture = await startGitHttpFixture({ coordinator: { jobTokenVerifier: jobTokens } });
    const { gantry } = fixture;
    developer = await makeUser(gantry, 'dev');
    reporter = await makeUser(gantry, 'rep');
    guest = await makeUser(gantry, 'guest');
    stranger = await makeUser(gantry, 'stranger');
    const team = await makeGroup(gantry, 'team', { visibility: 'public' });
    const sub = await makeGroup(gantry, 'sub', { visibility: 'public', parentId: team.id });
    privateProject = await fixture.project(sub.id, 'secret', { withReadme: true });
    publicProject = await fixture.project(sub.id, 'open', { visibility: 'public', withReadme: true });
    internalProject = await fixture.project(sub.id, 'inside', { visibility: 'internal', withReadme: true });
    emptyProject = await fixture.project(sub.id, 'blank');
    for (const project of [privateProject, emptyProject, publicProject]) {
      await addMember(gantry, { type: 'project', id: project.id }, developer.id, 30);
      await addMember(gantry, { type: 'project', id: project.id }, reporter.id, 20);
      await addMember(gantry, { type: 'project', id: project.id }, guest.id, 10);
    }
  });

  after(async () => {
    await fixture?.close();
  });

  it('clones a non-empty repository over a multi-segment path', async () => {
    const result = await fixture.git(['clone', fixture.url('team/sub/secret', as(reporter)), 'secret-reporter']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(readFileSync(path.join(fixture.workDir, 'secret-reporter', 'README.md'), 'utf8'), /^# secret/);
  });

  it('clones an empty repository and pushes the first branch into it', async () => {
    const clone = await fixture.git(['clone', fixture.url('team/sub/blank', as(developer)), 'blank']);
    assert.equal(clone.code, 0, clone.stderr);
    assert.match(clone.stderr, /empty repository/);
    const cwd = path.join(fixture.workDir, 'blank');
    await fixture.git(['commit', '--allow-empty', '-m', 'first'], { cwd });
    const head = await revParse(cwd, 'HEAD');
    const push = await fixture.git(['push', 'origin', 'HEAD:refs/heads/main'], { cwd });
    assert.equal(push.code, 0, push.stderr);
    const event = fixture.pushEvents.find((candidate) => candidate.project_id === emptyProject.id);
    assert.deepEqual(event, { project_id: emptyProject.id, ref: 'refs/heads/main', before: ZERO, after: head, user_id: developer.id });
  });

  it('pushes a new branch, then an update, publishing one event per ref with before/after', async () => {
    const cloned = await fixture.git(['clone', fixture.url('team/sub/secret', as(developer)), 'secret-dev']);
    assert.equal(cloned.code, 0, cloned.stderr);
    const cwd = path.join(fixture.workDir, 'secret-dev');
    const before = (await fixture.gantry.coordinator.context.stores.projects.findById(privateProject.id))!.last_activity_at;
    await fixture.git(['checkout', '-b', 'feature'], { cwd });
    await fixture.git(['commit', '--allow-empty', '-m', 'feature work'], { cwd });
    const first = await revParse(cwd, 'HEAD');
    await fixture.git(['tag', 'v1.0'], { cwd });
    fixture.pushEvents.length = 0;
    const push = await fixture.git(['push', 'origin', 'feature', 'v1.0'], { cwd });
    assert.equal(push.code, 0, push.stderr);
    assert.match(push.stderr, /\[new branch\]\s+feature -> feature/);
    const byRef = (ref: string) => fixture.pushEvents.find((event) => event.ref === ref);
    assert.equal(fixture.pushEvents.length, 2);
    assert.deepEqual(byRef('refs/heads/feature'), { project_id: privateProject.id, ref: 'refs/heads/feature', before: ZERO, after: first, user_id: developer.id });
    assert.deepEqual(byRef('refs/tags/v1.0'), { project_id: privateProject.id, ref: 'refs/tags/v1.0', before: ZERO, after: first, user_id: developer.id });
    const touched = (await fixture.gantry.coordinator.context.stores.projects.findById(privateProject.id))!.last_activity_at;
    assert.ok(touched > before, `${touched} should be after ${before}`);

    await fixture.git(['commit', '--allow-empty', '-m', 'more work'], { cwd });
    const second = await revParse(cwd, 'HEAD');
    fixture.pushEvents.length = 0;
    const update = await fixture.git(['push', 'origin', 'feature'], { cwd });
    assert.equal(update.code, 0, update.stderr);
    assert.deepEqual(fixture.pushEvents, [{ project_id: privateProject.id, ref: 'refs/heads/feature', before: first, after: second, user_id: developer.id }]);

    const listed = await fixture.git(['ls-remote', fixture.url('team/sub/secret', as(reporter)), 'refs/heads/feature']);
    assert.equal(listed.stdout.split('\t')[0], second);
  });

  it('streams a multi-megabyte pack both ways', async () => {
    const cwd = path.join(fixture.workDir, 'secret-dev');
    writeFileSync(path.join(cwd, 'big.bin'), randomBytes(6 * 1024 * 1024));
    await fixture.git(['add', 'big.bin'], { cwd });
    await fixture.git(['commit', '-q', '-m', 'big file'], { cwd });
    const push = await fixture.git(['push', 'origin', 'HEAD:refs/heads/big'], { cwd });
    assert.equal(push.code, 0, push.stderr);
    const clone = await fixture.git(['clone', '--branch', 'big', fixture.url('team/sub/secret', as(reporter)), 'secret-big']);
    assert.equal(clone.code, 0, clone.stderr);
    assert.ok(readFileSync(path.join(fixture.workDir, 'secret-big', 'big.bin')).equals(readFileSync(path.join(cwd, 'big.bin'))));
  });

  it('speaks protocol v2 when the client asks for it', async () => {
    const result = await fixture.git(['-c', 'protocol.version=2', 'ls-remote', fixture.url('team/sub/open')], { env: { GIT_TRACE_PACKET: '1' } });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /\trefs\/heads\/main\n/);
    assert.match(result.stderr, /< version 2/);
    assert.match(result.stderr, /> command=ls-refs/);
  });

  it('answers a repository\'s protocol v2 advertisement from memory after the first, while ls-refs still sees new refs', async () => {
    const { spawner } = fixture.gantry.coordinator.context.repositories;
    const spawn = spawner.spawn.bind(spawner);
    const backends: string[] = [];
    spawner.spawn = (request) => {
      if (request.args.includes('http-backend')) backends.push(request.env?.PATH_INFO ?? '');
      return spawn(request);
    };
    try {
      const advertise = (version: string) => fetch(`${fixture.baseUrl}/team/sub/open.git/info/refs?service=git-upload-pack`, { headers: { 'Git-Protocol': version } });
      const first = await advertise('version=2');
      const firstBody = await first.text();
      const afterFirst = backends.length;
      const second = await advertise('version=2');
      const secondBody = await second.text();
      assert.deepEqual([first.status, second.status], [200, 200]);
      assert.equal(second.headers.get('content-type'), 'application/x-git-upload-pack-advertisement');
      assert.equal(second.headers.get('cache-control'), first.headers.get('cache-control'));
      assert.match(secondBody, /version 2\n/);
      assert.equal(secondBody, firstBody);
      assert.equal(backends.length, afterFirst, 'the second advertisement ran git http-backend again');
      // Protocol v0 lists refs in its advertisement: always from git.
      const before = backends.length;
      assert.match(await (await advertise('')).text(), /refs\/heads\/main/);
      assert.equal(backends.length, before + 1);

      const cwd = path.join(fixture.workDir, 'open-advertised');
      assert.equal((await fixture.git(['clone', fixture.url('team/sub/open', as(developer)), cwd])).code, 0);
      assert.equal((await fixture.git(['push', 'origin', 'HEAD:refs/heads/advertised'], { cwd })).code, 0);
      const listed = await fixture.git(['-c', 'protocol.version=2', 'ls-remote', fixture.url('team/sub/open')]);
      assert.match(listed.stdout, /\trefs\/heads\/advertised\n/);
    } finally {
      spawner.spawn = spawn;
    }
  });

  it('fetches with protocol v2 into an existing clone', async () => {
    const clone = await fixture.git(['-c', 'protocol.version=2', 'clone', fixture.url('team/sub/open'), 'open-v2']);
    assert.equal(clone.code, 0, clone.stderr);
    const fetch = await fixture.git(['-c', 'protocol.version=2', 'fetch', 'origin'], { cwd: path.join(fixture.workDir, 'open-v2') });
    assert.equal(fetch.code, 0, fetch.stderr);
  });

  it('lets anyone clone a public project anonymously, but not push to it', async () => {
    const clone = await fixture.git(['clone', fixture.url('team/sub/open'), 'open-anonymous']);
    assert.equal(clone.code, 0, clone.stderr);
    assert.ok(existsSync(path.join(fixture.workDir, 'open-anonymous', 'README.md')));
    const push = await fetch(`${fixture.baseUrl}/team/sub/open.git/info/refs?service=git-receive-pack`);
    assert.equal(push.status, 401);
    assert.equal(push.headers.get('www-authenticate'), 'Basic realm="Gantry"');
  });

  it('asks anonymous clients of a private project for credentials (401)', async () => {
    const response = await fetch(`${fixture.baseUrl}/team/sub/secret.git/info/refs?service=git-upload-pack`);
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Basic realm="Gantry"');
    const clone = await fixture.git(['clone', fixture.url('team/sub/secret'), 'secret-anonymous']);
    assert.notEqual(clone.code, 0);
    assert.match(clone.stderr, /could not read Username|Authentication failed/);
  });

  it('answers 404 to a signed-in non-member of a private project, like an unknown project', async () => {
    for (const fullPath of ['team/sub/secret', 'team/sub/no-such-project']) {
      const response = await fetch(`${fixture.baseUrl}/${fullPath}.git/info/refs?service=git-upload-pack`, {
        headers: { authorization: basic(stranger.username, stranger.token) },
      });
      assert.equal(response.status, 404, fullPath);
      assert.match(await response.text(), /could not be found/);
    }
    const clone = await fixture.git(['clone', fixture.url('team/sub/secret', as(stranger)), 'secret-stranger']);
    assert.notEqual(clone.code, 0);
    assert.match(clone.stderr, /could not be found|not found/i);
  });

  it('refuses a guest the code of a private project (403) and a reporter the push (403)', async () => {
    const guestClone = await fetch(`${fixture.baseUrl}/team/sub/secret.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: basic(guest.username, guest.token) },
    });
    assert.equal(guestClone.status, 403);
    assert.match(await guestClone.text(), /not allowed to download code/);

    const cwd = path.join(fixture.workDir, 'secret-reporter');
    await fixture.git(['commit', '--allow-empty', '-m', 'reporter work'], { cwd });
    const push = await fixture.git(['push', 'origin', 'HEAD:refs/heads/reporter'], { cwd });
    assert.notEqual(push.code, 0);
    assert.match(push.stderr, /remote: You are not allowed to push code to this project\./);
  });

  it('lets any signed-in user clone an internal project, but not anonymous users', async () => {
    const clone = await fixture.git(['clone', fixture.url('team/sub/inside', as(stranger)), 'inside-stranger']);
    assert.equal(clone.code, 0, clone.stderr);
    const anonymous = await fetch(`${fixture.baseUrl}/team/sub/inside.git/info/refs?service=git-upload-pack`);
    assert.equal(anonymous.status, 401);
    assert.ok(internalProject.id > 0);
  });

  it('refuses pushes to an archived project but still serves clones', async () => {
    const archived = await fixture.project(publicProject.namespace_id, 'frozen', { withReadme: true });
    await addMember(fixture.gantry, { type: 'project', id: archived.id }, developer.id, 30);
    await fixture.gantry.coordinator.context.stores.projects.update(archived.id, { archived: true });
    const headers = { authorization: basic(developer.username, developer.token) };
    const push = await fetch(`${fixture.baseUrl}/team/sub/frozen.git/info/refs?service=git-receive-pack`, { headers });
    assert.equal(push.status, 403);
    assert.match(await push.text(), /archived project/);
    const clone = await fetch(`${fixture.baseUrl}/team/sub/frozen.git/info/refs?service=git-upload-pack`, { headers });
    assert.equal(clone.status, 200);
    assert.equal(clone.headers.get('content-type'), 'application/x-git-upload-pack-advertisement');
  });

  it('treats the token of a blocked user as invalid', async () => {
    const blocked = await makeUser(fixture.gantry, 'blocked');
    await fixture.gantry.coordinator.context.stores.users.update(blocked.id, { state: 'blocked' });
    const response = await fetch(`${fixture.baseUrl}/team/sub/open.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: basic(blocked.username, blocked.token) },
    });
    assert.equal(response.status, 401);
  });

  it('honours token scopes: read_repository clones but cannot push, read_api does not authenticate git', async () => {
    const issue = async (scopes: string[]) => {
      const created = await fixture.gantry.api('POST', `/users/${developer.id}/personal_access_tokens`, { body: { name: scopes.join('+'), scopes } });
      return { user: developer.username, secret: String(created.json.token) };
    };
    const readOnly = await issue(['read_repository']);
    const clone = await fixture.git(['clone', fixture.url('team/sub/secret', readOnly), 'secret-read-only']);
    assert.equal(clone.code, 0, clone.stderr);
    const cwd = path.join(fixture.workDir, 'secret-read-only');
    await fixture.git(['commit', '--allow-empty', '-m', 'read-only work'], { cwd });
    const push = await fixture.git(['push', 'origin', 'HEAD:refs/heads/read-only'], { cwd });
    assert.notEqual(push.code, 0);
    assert.match(push.stderr, /not allowed to push code/);
    const writer = await issue(['write_repository']);
    await fixture.git(['remote', 'set-url', 'origin', fixture.url('team/sub/secret', writer)], { cwd });
    const pushed = await fixture.git(['push', 'origin', 'HEAD:refs/heads/read-only'], { cwd });
    assert.equal(pushed.code, 0, pushed.stderr);
    const apiOnly = await issue(['read_api']);
    const refused = await fetch(`${fixture.baseUrl}/team/sub/secret.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: basic(apiOnly.user, apiOnly.secret) },
    });
    assert.equal(refused.status, 401);
  });

  it('answers 401 to a wrong token, even for a public project', async () => {
    const response = await fetch(`${fixture.baseUrl}/team/sub/open.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: basic('dev', 'not-a-token') },
    });
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Basic realm="Gantry"');
  });

  it('accepts a CI job token for clones (gitlab-ci-token) but refuses pushes with it', async () => {
    const jobCredentials = { user: 'gitlab-ci-token', secret: `job-token-${developer.id}-${privateProject.id}` };
    const clone = await fixture.git(['clone', fixture.url('team/sub/secret', jobCredentials), 'secret-job']);
    assert.equal(clone.code, 0, clone.stderr);
    const cwd = path.join(fixture.workDir, 'secret-job');
    await fixture.git(['commit', '--allow-empty', '-m', 'from a job'], { cwd });
    const push = await fixture.git(['push', 'origin', 'HEAD:refs/heads/from-job'], { cwd });
    assert.notEqual(push.code, 0);
    const refused = await fetch(`${fixture.baseUrl}/team/sub/secret.git/info/refs?service=git-receive-pack`, {
      headers: { authorization: basic('gitlab-ci-token', jobCredentials.secret) },
    });
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /not allowed to upload code/);
    const invalid = await fetch(`${fixture.baseUrl}/team/sub/secret.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: basic('gitlab-ci-token', 'forged') },
    });
    assert.equal(invalid.status, 401);
    const outsider = await fixture.git(['ls-remote', fixture.url('team/sub/secret', { user: 'gitlab-ci-token', secret: `job-token-${stranger.id}-1` })]);
    assert.notEqual(outsider.code, 0, 'a job of a user without access must not read the project');
  });

  it('takes a personal token after the gitlab-ci-token user name as that token, as GitLab does (semantic-release\'s URL)', async () => {
    const personal = { user: 'gitlab-ci-token', secret: developer.token };
    const clone = await fixture.git(['clone', fixture.url('team/sub/secret', personal), 'secret-ci-user-personal']);
    assert.equal(clone.code, 0, clone.stderr);
    const cwd = path.join(fixture.workDir, 'secret-ci-user-personal');
    await fixture.git(['commit', '--allow-empty', '-m', 'personal token under the CI user name'], { cwd });
    const push = await fixture.git(['push', 'origin', 'HEAD:refs/heads/ci-user-personal'], { cwd });
    assert.equal(push.code, 0, push.stderr);
    const reporterPush = await fetch(`${fixture.baseUrl}/team/sub/secret.git/info/refs?service=git-receive-pack`, {
      headers: { authorization: basic('gitlab-ci-token', reporter.token) },
    });
    assert.equal(reporterPush.status, 403, 'the token keeps its owner\'s rights');
  });

  it('redirects info/refs without .git and clones from such a URL', async () => {
    const response = await fetch(`${fixture.baseUrl}/team/sub/open/info/refs?service=git-upload-pack`, { redirect: 'manual' });
    assert.equal(response.status, 301);
    assert.equal(response.headers.get('location'), '/team/sub/open.git/info/refs?service=git-upload-pack');
    const clone = await fixture.git(['clone', `${fixture.baseUrl}/team/sub/open`, 'open-no-suffix']);
    assert.equal(clone.code, 0, clone.stderr);
  });

  it('does not serve the dumb protocol, and leaves other paths to the site 404', async () => {
    for (const suffix of ['HEAD', 'objects/info/packs', 'info/refs']) {
      const response = await fetch(`${fixture.baseUrl}/team/sub/open.git/${suffix}`);
      assert.equal(response.status, 404, suffix);
      assert.match(response.headers.get('content-type') ?? '', /text\/plain/);
    }
    // `/team/sub/open` itself is the project's web page now (docs/web.md); a path under it that no page serves is not.
    assert.equal((await fetch(`${fixture.baseUrl}/team/sub/open`)).status, 200);
    const unknown = await fetch(`${fixture.baseUrl}/team/sub/open/-/no-such-page`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), { error: '404 Not Found' });
    const api = await fetch(`${fixture.baseUrl}/api/v4/no-such-route`);
    assert.deepEqual(await api.json(), { error: '404 Not Found' });
  });

  it('accepts a gzip-encoded upload-pack request', async () => {
    const listed = await fixture.git(['ls-remote', fixture.url('team/sub/open'), 'refs/heads/main']);
    const want = listed.stdout.split('\t')[0]!;
    const pkt = (line: string): string => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
    const body = gzipSync(Buffer.from(`${pkt(`want ${want}\n`)}0000${pkt('done\n')}`));
    const response = await fetch(`${fixture.baseUrl}/team/sub/open.git/git-upload-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip' },
      body,
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/x-git-upload-pack-result');
    const answer = Buffer.from(await response.arrayBuffer());
    assert.equal(answer.subarray(0, 8).toString(), '0008NAK\n');
    assert.equal(answer.subarray(8, 12).toString(), 'PACK');
  });

  it('answers 400 to a receive-pack body that is not a command list', async () => {
    const response = await fetch(`${fixture.baseUrl}/team/sub/secret.git/git-receive-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-receive-pack-request', authorization: basic(developer.username, developer.token) },
      body: 'this is not pkt-line data',
    });
    assert.equal(response.status, 400);
    assert.match(await response.text(), /malformed/);
  });

  it('refuses POSTs to receive-pack without credentials before reading the pack', async () => {
    const response = await fetch(`${fixture.baseUrl}/team/sub/open.git/git-receive-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-receive-pack-request' },
      body: '0000',
    });
    assert.equal(response.status, 401);
  });
});
