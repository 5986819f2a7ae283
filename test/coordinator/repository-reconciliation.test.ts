import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createCoordinator, type Coordinator } from '../../src/coordinator/app.ts';
import { reconcileRepositories } from '../../src/coordinator/repository-reconciliation.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { git } from '../storage/git/fixture.ts';
import { testDatabase } from '../helpers/database.ts';

const TOKEN = 'reconcile-root-token-0123456789';
const NAMES = ['half-config', 'unborn-head', 'lost-repo', 'interrupted', 'default-null', 'untouched', 'unreadable-refs', 'unreadable-config'] as const;
type Name = (typeof NAMES)[number];

describe('start-up reconciliation of repositories and projects', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-reconcile-'));
  const repositories = path.join(dataDir, 'repositories');
  const logLines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: 'info',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    }),
  });
  let database: { url: string; drop(): Promise<void> };
  let coordinator: Coordinator;
  const ids = new Map<Name, number>();
  const repo = (name: Name | number): string => path.join(repositories, `${typeof name === 'number' ? name : ids.get(name)}.git`);

  async function start(): Promise<Coordinator> {
    const databaseUrl = database.url === ':memory:' ? path.join(dataDir, 'gantry.sqlite3') : database.url;
    return createCoordinator({ dataDir, databaseUrl, rootToken: TOKEN, logger });
  }

  async function api(method: 'GET' | 'POST', url: string, body?: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await coordinator.app.inject({ method, url: `/api/v4${url}`, headers: { 'private-token': TOKEN }, payload: body });
    return { status: response.statusCode, json: response.body ? (JSON.parse(response.body) as Record<string, unknown>) : {} };
  }

  before(async () => {
    database = await testDatabase();
    coordinator = await start();
    for (const name of NAMES) {
      const created = await api('POST', '/projects', { name, initialize_with_readme: true });
      assert.equal(created.status, 201);
      ids.set(name, created.json.id as number);
    }
    const { stores } = coordinator.context;
    await stores.projects.update(ids.get('interrupted')!, { pending_delete: true });
    await stores.projects.update(ids.get('default-null')!, { default_branch: null });
    await coordinator.close();

    // What crashes (and older versions) left behind.
    writeFileSync(path.join(repo('half-config'), 'config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n[receive]\n\tfsckObjects = false\n');
    writeFileSync(path.join(repo('unborn-head'), 'HEAD'), 'ref: refs/heads/gone\n');
    writeFileSync(path.join(repo('unborn-head'), 'refs', 'heads', 'main.lock'), '');
    rmSync(repo('lost-repo'), { recursive: true });
    cpSync(repo('untouched'), repo(999), { recursive: true });
    mkdirSync(path.join(repositories, '.tmp', 'new-0123.git', 'objects'), { recursive: true });
    mkdirSync(path.join(repositories, '.tmp', 'index-abcd'), { recursive: true });
    mkdirSync(path.join(repositories, `${ids.get('untouched')! + 100}.git.deleting-1700000000000`), { recursive: true });
    // Read errors, not missing files: main lives in packed-refs, which cannot be read (a
    // directory); another branch is loose. And a config that cannot be read.
    await git(repo('unreadable-refs'), ['pack-refs', '--all']);
    await git(repo('unreadable-refs'), ['update-ref', 'refs/heads/other', 'refs/heads/main']);
    const packedRefs = path.join(repo('unreadable-refs'), 'packed-refs');
    rmSync(packedRefs);
    mkdirSync(packedRefs);
    rmSync(path.join(repo('unreadable-config'), 'config'));
    mkdirSync(path.join(repo('unreadable-config'), 'config'));

    logLines.length = 0;
    coordinator = await start();
  });

  after(async () => {
    await coordinator?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('rewrites a half-written config whole, with the object checks on', async () => {
    assert.equal(readFileSync(path.join(repo('half-config'), 'config'), 'utf8'), await coordinator.context.repositories.canonicalConfig());
    assert.equal(await git(repo('half-config'), ['config', 'receive.fsckObjects']), 'true');
    assert.equal(await git(repo('half-config'), ['config', 'http.receivepack']), 'true');
  });

  it('points a HEAD naming a missing branch at the default branch, and removes stale locks', async () => {
    assert.equal(readFileSync(path.join(repo('unborn-head'), 'HEAD'), 'utf8'), 'ref: refs/heads/main\n');
    assert.equal(existsSync(path.join(repo('unborn-head'), 'refs', 'heads', 'main.lock')), false);
    const commit = await api('POST', `/projects/${ids.get('unborn-head')}/repository/commits`, { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'b', content: 'b' }] });
    assert.equal(commit.status, 201, 'the branch can be updated again');
  });

  it('sets default_branch from the repository when the database lost it', async () => {
    assert.equal((await api('GET', `/projects/${ids.get('default-null')}`)).json.default_branch, 'main');
    assert.equal((await api('GET', `/projects/${ids.get('unborn-head')}`)).json.default_branch, 'main');
  });

  it('gives a project whose repository is missing an empty one', async () => {
    assert.equal(await coordinator.context.repositories.exists(ids.get('lost-repo')!), true);
    assert.equal(await coordinator.context.repositories.open(ids.get('lost-repo')!).isEmpty(), true);
    assert.equal((await api('GET', `/projects/${ids.get('lost-repo')}`)).json.default_branch, null);
  });

  it('finishes the deletion of a project left marked pending_delete', async () => {
    assert.equal((await api('GET', `/projects/${ids.get('interrupted')}`)).status, 404);
    assert.equal(await coordinator.context.stores.projects.findById(ids.get('interrupted')!), undefined);
    assert.equal(existsSync(repo('interrupted')), false);
  });

  it('removes repositories without a project and temporary leftovers', () => {
    assert.equal(existsSync(repo(999)), false);
    assert.equal(existsSync(path.join(repositories, `${ids.get('untouched')! + 100}.git.deleting-1700000000000`)), false);
    // Only the running coordinator's own temporary directory, with nothing left in it.
    const temporary = path.join(repositories, '.tmp');
    const own = coordinator.context.instance.id;
    assert.deepEqual(existsSync(temporary) ? readdirSync(temporary).filter((name) => name !== own) : [], []);
    assert.deepEqual(existsSync(path.join(temporary, own)) ? readdirSync(path.join(temporary, own)) : [], []);
  });

  it('leaves a whole project alone and logs every repair', async () => {
    assert.equal((await api('GET', `/projects/${ids.get('untouched')}`)).json.default_branch, 'main');
    const repairs = logLines.filter((line) => String(line.msg).startsWith('reconciliation:'));
    const about = (name: Name) => repairs.filter((line) => line.project_id === ids.get(name)).map((line) => String(line.msg));
    assert.deepEqual(about('untouched'), []);
    assert.equal(about('half-config').length, 1);
    assert.equal(about('unborn-head').length, 2, 'lock and HEAD');
    assert.equal(about('lost-repo').length, 1);
    assert.equal(about('interrupted').length, 1);
    assert.equal(about('default-null').length, 1);
    assert.equal(repairs.filter((line) => line.project_id === 999).length, 1);
    assert.equal(repairs.filter((line) => typeof line.path === 'string' && line.project_id === undefined).length, 3, 'two .tmp entries and one .deleting directory');
    const summary = logLines.find((line) => line.msg === 'repositories reconciled');
    assert.equal(summary?.repairs, repairs.length);
  });

  it('changes nothing of a repository with a file it cannot read, and says so', async () => {
    assert.equal(readFileSync(path.join(repo('unreadable-refs'), 'HEAD'), 'utf8'), 'ref: refs/heads/main\n', 'HEAD still names main');
    assert.equal((await api('GET', `/projects/${ids.get('unreadable-refs')}`)).json.default_branch, 'main');
    assert.ok(statSync(path.join(repo('unreadable-config'), 'config')).isDirectory(), 'the config was not replaced');
    const skipped = logLines.filter((line) => line.msg === 'reconciliation skipped a repository it could not read; nothing of it was changed');
    assert.deepEqual(
      skipped.map((line) => [line.level, line.project_id, line.unreadable]),
      [
        [50, ids.get('unreadable-refs'), ['packed-refs: EISDIR']],
        [50, ids.get('unreadable-config'), ['config: EISDIR']],
      ],
    );
    assert.equal(logLines.find((line) => line.msg === 'repositories reconciled')?.unreadable, 2);
  });

  it('finds nothing to do the next time', async () => {
    const report = await reconcileRepositories(coordinator.context);
    assert.deepEqual(report.repairs, []);
  });
});
