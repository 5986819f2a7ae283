import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, watch } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { enc, startRepositoryFixture, type RepositoryFixture } from './repository-fixtures.ts';

const ACTIONS = 10_000;

function manyCreates(count: number, content: (index: number) => string): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, index) => ({
    action: 'create',
    file_path: `dir-${index % 100}/file-${index}.txt`,
    content: content(index),
  }));
}

/** Git processes this test process started (the coordinator runs in it). */
function gitChildren(): Promise<string[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'args=', '--ppid', String(process.pid)], (_error, stdout) => {
      resolve(stdout.split('\n').filter((line) => /^git\b/.test(line.trim())));
    });
  });
}

describe('commits with many actions', () => {
  let fx: RepositoryFixture;
  let project: ProjectRecord;

  before(async () => {
    fx = await startRepositoryFixture();
    project = await fx.project('many', { withReadme: true });
  });

  after(async () => {
    await fx?.close();
  });

  it(`commits ${ACTIONS.toLocaleString('en')} actions in one commit with the right tree`, async () => {
    const created = await fx.commit(project, { branch: 'main', commit_message: 'Many files', actions: manyCreates(ACTIONS, (index) => `content of file ${index}\n`) });
    assert.deepEqual(created.stats, { additions: ACTIONS, deletions: 0, total: ACTIONS });
    for (const index of [0, 1, 4_999, ACTIONS - 1]) {
      const file = `dir-${index % 100}/file-${index}.txt`;
      const raw = await fx.raw(`/projects/${project.id}/repository/files/${enc(file)}/raw?ref=main`);
      assert.equal(raw.statusCode, 200, file);
      assert.equal(raw.body, `content of file ${index}\n`);
    }
    const tree = await fx.gantry.api('GET', `/projects/${project.id}/repository/tree?ref=main&recursive=true&per_page=100&path=dir-7`);
    assert.equal(tree.headers['x-total'], String(ACTIONS / 100));

    // A second commit over the same files: updates, moves, deletions and a chmod in one go.
    const second = await fx.commit(project, {
      branch: 'main',
      commit_message: 'Rework',
      actions: [
        ...Array.from({ length: 3_000 }, (_, index) => ({ action: 'update', file_path: `dir-${index % 100}/file-${index}.txt`, content: `updated ${index}\n` })),
        ...Array.from({ length: 3_000 }, (_, index) => ({ action: 'delete', file_path: `dir-${(index + 3_000) % 100}/file-${index + 3_000}.txt` })),
        { action: 'move', previous_path: 'dir-0/file-9000.txt', file_path: 'moved/file-9000.txt' },
        { action: 'chmod', file_path: 'dir-1/file-9001.txt', execute_filemode: true },
      ],
    });
    assert.equal((second.parent_ids as string[])[0], created.id);
    assert.equal((await fx.raw(`/projects/${project.id}/repository/files/${enc('dir-5/file-5.txt')}/raw?ref=main`)).body, 'updated 5\n');
    assert.equal((await fx.raw(`/projects/${project.id}/repository/files/${enc('dir-5/file-3005.txt')}/raw?ref=main`)).statusCode, 404);
    assert.equal((await fx.raw(`/projects/${project.id}/repository/files/${enc('moved/file-9000.txt')}/raw?ref=main`)).body, 'content of file 9000\n');
    const listing = await fx.gantry.api('GET', `/projects/${project.id}/repository/tree?ref=main&path=dir-1&per_page=100`);
    const modes = new Map(listing.list.map((entry) => [entry.name, entry.mode]));
    assert.equal(modes.get('file-9001.txt'), '100755');
    assert.equal(modes.get('file-9101.txt'), '100644');
  });

  it('refuses a bad action among thousands without writing anything', async () => {
    const before = await fx.gantry.api('GET', `/projects/${project.id}/repository/branches/main`);
    const actions = [...manyCreates(2_000, (index) => `new ${index}\n`).map((action, index) => ({ ...action, file_path: `fresh/${index}.txt` })), { action: 'delete', file_path: 'no/such/file' }];
    const refused = await fx.gantry.api('POST', `/projects/${project.id}/repository/commits`, { body: { branch: 'main', commit_message: 'x', actions } });
    assert.equal(refused.status, 400);
    const afterRefusal = await fx.gantry.api('GET', `/projects/${project.id}/repository/branches/main`);
    assert.deepEqual((afterRefusal.json.commit as Record<string, unknown>).id, (before.json.commit as Record<string, unknown>).id);
  });

  it('stops the commit when the client disconnects: git processes end and the branch does not move', async () => {
    const app = fx.gantry.coordinator.app;
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const tipBefore = await fx.gantry.api('GET', `/projects/${project.id}/repository/branches/main`);
    // This coordinator's own temporary directory (each instance has one under .tmp).
    const temporary = path.join(fx.gantry.dataDir, 'repositories', '.tmp', fx.gantry.coordinator.context.instance.id);
    mkdirSync(temporary, { recursive: true });
    const filler = 'x'.repeat(4_000);
    const body = JSON.stringify({ branch: 'main', commit_message: 'Never', actions: manyCreates(ACTIONS, (index) => `${index} ${filler}`).map((action, index) => ({ ...action, file_path: `gone/${index}.txt` })) });

    // The commit's temporary index appears: the request is being worked on. Hang up then.
    const started = new Promise<void>((resolve) => {
      const watcher = watch(temporary, (_event, name) => {
        if (name?.startsWith('index-')) {
          watcher.close();
          resolve();
        }
      });
    });
    const client = request({ host: '127.0.0.1', port, method: 'POST', path: `/api/v4/projects/${project.id}/repository/commits`, headers: { 'content-type': 'application/json', 'private-token': ROOT_TOKEN } });
    const answered = new Promise<number | null>((resolve) => {
      client.on('response', (response) => resolve(response.statusCode ?? null));
      client.on('error', () => resolve(null));
    });
    client.end(body);
    await started;
    client.destroy();
    assert.equal(await answered, null, 'the commit finished before the client went away');

    let running = await gitChildren();
    for (let attempt = 0; attempt < 100 && running.length > 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      running = await gitChildren();
    }
    assert.deepEqual(running.filter((line) => !line.includes('cat-file')), [], 'git processes still running after the disconnect');
    const tipAfter = await fx.gantry.api('GET', `/projects/${project.id}/repository/branches/main`);
    assert.equal((tipAfter.json.commit as Record<string, unknown>).id, (tipBefore.json.commit as Record<string, unknown>).id);
    // The temporary index is removed once the aborted write has unwound, which may be just after git ended.
    const leftovers = async () => (await readdir(temporary)).filter((name) => name.startsWith('index-'));
    await waitUntil(async () => (await leftovers()).length === 0, 'the temporary index removed');
    assert.deepEqual(await leftovers(), []);
  });
});
