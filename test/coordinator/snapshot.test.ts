import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

describe('GET /projects/:id/snapshot', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let project: ProjectRecord;
  const scratch = mkdtempSync(path.join(tmpdir(), 'gantry-snapshot-'));
  let unpacked = 0;

  /** The snapshot's raw bytes (binary: not through the JSON helper). */
  const download = async (query = '') => {
    const response = await gantry.coordinator.app.inject({ method: 'GET', url: `/api/v4/projects/${project.id}/snapshot${query}`, headers: { 'private-token': ROOT_TOKEN } });
    return { status: response.statusCode, headers: response.headers, bytes: response.rawPayload };
  };
  /** Unpacks a tar into a fresh directory; its path. */
  const untar = (bytes: Buffer): string => {
    unpacked += 1;
    const directory = path.join(scratch, `unpacked-${unpacked}.git`);
    mkdirSync(directory);
    const file = `${directory}.tar`;
    writeFileSync(file, bytes);
    execFileSync('tar', ['-x', '-f', file, '-C', directory], { timeout: 60_000 });
    return directory;
  };
  const git = (args: string[], cwd = scratch): string => execFileSync('git', args, { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).trim();
  const commitFile = async (name: string) => {
    const created = await gantry.api('POST', `/projects/${project.id}/repository/files/${name}`, { body: { branch: 'main', content: `content of ${name}\n`, commit_message: `add ${name}` } });
    assert.equal(created.status, 201, created.text);
  };

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await makeUser(gantry, 'alice');
    const group = await makeGroup(gantry, 'snap', { visibility: 'public' });
    project = await makeProjectWithRepository(gantry, group.id, 'app', { visibility: 'public', withReadme: true });
    await commitFile('one.txt');
  });
  after(async () => {
    await gantry.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('streams a tar of the bare repository that tar lists and git clones', async () => {
    const answer = await download();
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-type'], 'application/x-tar');
    assert.match(String(answer.headers['content-disposition']), /^attachment; filename="app-\d+-\d{8}T\d{6}\.tar"/);
    const file = path.join(scratch, 'listed.tar');
    writeFileSync(file, answer.bytes);
    const entries = execFileSync('tar', ['-t', '-f', file], { encoding: 'utf8', timeout: 60_000 }).split('\n');
    for (const expected of ['HEAD', 'config', 'refs/heads/main', 'objects/']) assert.ok(entries.includes(expected), `${expected} in ${entries.slice(0, 20).join(', ')}`);
    assert.ok(!entries.some((entry) => entry.endsWith('.lock') || entry.includes('gantry-housekeeping')), 'no lock or lease file');

    const bare = untar(answer.bytes);
    git(['clone', '--quiet', bare, 'cloned']);
    assert.equal(git(['log', '--format=%s'], path.join(scratch, 'cloned')), 'add one.txt\nInitial commit');
    assert.equal(git(['rev-parse', 'HEAD'], path.join(scratch, 'cloned')), git(['--git-dir', gantry.coordinator.context.repositories.open(project.id).path, 'rev-parse', 'main']));
  });

  it('gives a consistent repository while commits and a gc land during the snapshot', async () => {
    const repositories = gantry.coordinator.context.repositories;
    const [answer] = await Promise.all([
      download(),
      (async () => {
        for (let index = 0; index < 4; index += 1) await commitFile(`during-${index}.txt`);
      })(),
      repositories.runHousekeeping(project.id, { gc: true }),
    ]);
    assert.equal(answer.status, 200);
    const bare = untar(answer.bytes);
    // Every ref in the tar finds all of its objects.
    assert.equal(git(['--git-dir', bare, 'fsck', '--connectivity-only', '--no-dangling']), '');
    assert.ok(Number(git(['--git-dir', bare, 'rev-list', '--count', 'main'])) >= 2);
  });

  it('answers 404 for wiki=true (no wikis), 401 without a token, 403 for non-administrators and 404 for unknown projects', async () => {
    const wiki = await gantry.api('GET', `/projects/${project.id}/snapshot?wiki=true`);
    assert.deepEqual(wiki.body, { message: '404 Wiki Not Found' });
    assert.equal((await download('?wiki=false')).status, 200);
    assert.equal((await gantry.api('GET', `/projects/${project.id}/snapshot`, { token: null })).status, 401);
    assert.deepEqual((await gantry.api('GET', `/projects/${project.id}/snapshot`, { token: alice.token })).body, { message: '403 Forbidden' });
    assert.deepEqual((await gantry.api('GET', '/projects/999999/snapshot')).body, { message: '404 Project Not Found' });
    assert.equal((await gantry.api('GET', `/projects/${project.id}/snapshot?wiki=maybe`)).status, 400);
  });
});
