import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { freePort, startServe, type ServeProcess } from '../helpers/serve-process.ts';

const TOKEN = 'crash-test-root-token-0123456789';
const ROUNDS = 3;
const WORKERS = 6;

interface Ledger {
  /** Projects whose creation (or fork) was answered 201, by id. */
  projects: Map<number, string>;
  /** Projects whose deletion was answered 202. */
  deleted: Set<number>;
  /** Commits answered 201: [project id, sha]. */
  commits: Array<[number, string]>;
}

function git(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' };
    execFile('git', args, { cwd, env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

async function api(server: ServeProcess, method: string, url: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${server.baseUrl}/api/v4${url}`, {
    method,
    headers: { 'PRIVATE-TOKEN': TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return { status: response.status, json };
}

/** One client: creates projects (every other one with a README), commits, forks and deletes until the server dies. */
async function worker(server: ServeProcess, ledger: Ledger, name: string): Promise<void> {
  for (let n = 0; ; n++) {
    const created = await api(server, 'POST', '/projects', { name: `${name}-${n}`, initialize_with_readme: n % 2 === 0 });
    if (created.status !== 201) return;
    const id = created.json.id as number;
    ledger.projects.set(id, String(created.json.path_with_namespace));
    const actions = [{ action: 'create', file_path: `file-${n}.txt`, content: `content ${n}\n` }];
    const commit = await api(server, 'POST', `/projects/${id}/repository/commits`, { branch: 'main', commit_message: `commit ${n}`, actions });
    if (commit.status !== 201) return;
    ledger.commits.push([id, String(commit.json.id)]);
    if (n % 3 === 1) {
      const fork = await api(server, 'POST', `/projects/${id}/fork`, { name: `${name}-${n}-fork`, path: `${name}-${n}-fork` });
      if (fork.status !== 201) return;
      ledger.projects.set(fork.json.id as number, String(fork.json.path_with_namespace));
    }
    if (n % 4 === 3) {
      const removed = await api(server, 'DELETE', `/projects/${id}`);
      if (removed.status !== 202) return;
      ledger.deleted.add(id);
    }
  }
}

async function allProjects(server: ServeProcess): Promise<Array<Record<string, unknown>>> {
  const projects: Array<Record<string, unknown>> = [];
  for (let page = 1; ; page++) {
    const response = await fetch(`${server.baseUrl}/api/v4/projects?per_page=100&page=${page}&order_by=id&sort=asc`, { headers: { 'PRIVATE-TOKEN': TOKEN } });
    const items = (await response.json()) as Array<Record<string, unknown>>;
    projects.push(...items);
    if (items.length < 100) return projects;
  }
}

async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

describe('crash recovery: SIGKILL during concurrent project creation and commits', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-crash-'));
  const clones = mkdtempSync(path.join(tmpdir(), 'gantry-crash-clones-'));
  // The coordinator's own system temporary directory (TMPDIR), so other processes' files do not count.
  const systemTemporary = mkdtempSync(path.join(tmpdir(), 'gantry-crash-tmp-'));
  let server: ServeProcess | undefined;
  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(clones, { recursive: true, force: true });
    rmSync(systemTemporary, { recursive: true, force: true });
  });

  it('keeps every acknowledged write, and every listed project is whole after a restart', async () => {
    const ledger: Ledger = { projects: new Map(), deleted: new Set(), commits: [] };
    const port = await freePort();
    const cloned = new Set<number>();
    for (let round = 0; round < ROUNDS; round++) {
      server = await startServe({ dataDir, port, token: TOKEN, env: { TMPDIR: systemTemporary } });
      const known = ledger.commits.length;
      const running = Array.from({ length: WORKERS }, (_, index) => worker(server!, ledger, `r${round}w${index}`).catch(() => undefined));
      // Kill at a random moment once the round has made some progress: two commits, so that a slow
      // machine's round, which may acknowledge no other before the kill, still leaves history to check.
      await waitUntil(() => ledger.commits.length > known + 1, `two acknowledged commits in round ${round}`, { timeoutMs: 120_000 });
      const delay = Math.floor(Math.random() * 1000);
      await new Promise((resolve) => setTimeout(resolve, delay));
      await server.kill();
      await Promise.all(running);

      server = await startServe({ dataDir, port, token: TOKEN, env: { TMPDIR: systemTemporary } });
      const context = `round ${round}, killed ${delay} ms after the second commit`;
      for (const [id] of ledger.projects) {
        const { status } = await api(server, 'GET', `/projects/${id}`);
        assert.equal(status, ledger.deleted.has(id) ? 404 : 200, `${context}: project ${id}`);
      }
      for (const [id, sha] of ledger.commits) {
        if (ledger.deleted.has(id)) continue;
        const { status } = await api(server, 'GET', `/projects/${id}/repository/commits/${sha}`);
        assert.equal(status, 200, `${context}: commit ${sha} of project ${id}`);
      }
      const listed = await allProjects(server);
      assert.ok(listed.length > 0, context);
      await inParallel(listed, 4, async (project) => {
        const url = `http://root:${TOKEN}@127.0.0.1:${port}/${String(project.path_with_namespace)}.git`;
        // Projects cloned in an earlier round are checked with ls-remote, except in the last round.
        if (cloned.has(Number(project.id)) && round < ROUNDS - 1) {
          const remote = await git(['ls-remote', '--symref', url, 'HEAD'], clones);
          assert.equal(remote.code, 0, `${context}: ls-remote of ${String(project.path_with_namespace)}: ${remote.stderr}`);
          const head = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(remote.stdout)?.[1] ?? null;
          const hasCommits = /^[0-9a-f]{40}\tHEAD$/m.test(remote.stdout);
          assert.equal(project.default_branch, hasCommits ? head : null, `${context}: default_branch of ${String(project.path_with_namespace)}`);
          return;
        }
        cloned.add(Number(project.id));
        const target = path.join(clones, `${round}-${String(project.id)}`);
        const clone = await git(['clone', '--quiet', url, target], clones);
        assert.equal(clone.code, 0, `${context}: clone of ${String(project.path_with_namespace)}: ${clone.stderr}`);
        const head = await git(['symbolic-ref', '--short', '-q', 'HEAD'], target);
        const hasCommits = (await git(['rev-parse', '--verify', '-q', 'HEAD'], target)).code === 0;
        const expected = hasCommits ? head.stdout.trim() : null;
        assert.equal(project.default_branch, expected, `${context}: default_branch of ${String(project.path_with_namespace)}`);
      });
      const repositories = path.join(dataDir, 'repositories');
      const leftovers = readdirSync(repositories).filter((name) => name.includes('.deleting-') || (name.startsWith('.') && name !== '.tmp'));
      assert.deepEqual(leftovers, [], `${context}: leftovers in the repositories directory`);
      const onDisk = readdirSync(repositories).filter((name) => name.endsWith('.git')).map((name) => Number(name.slice(0, -4)));
      // Whole configs only: every repository's config file is the same.
      const configs = new Set(onDisk.map((id) => readFileSync(path.join(repositories, `${id}.git`, 'config'), 'utf8')));
      assert.equal(configs.size, 1, `${context}: repositories with differing configs:\n${[...configs].join('\n---\n')}`);
      assert.deepEqual(onDisk.sort((a, b) => a - b), listed.map((project) => Number(project.id)).sort((a, b) => a - b), `${context}: repositories without a project`);
      // The running coordinator's own temporary directory may exist (instances own one each); nothing may be in it.
      const temporary = path.join(repositories, '.tmp');
      const temporaryFiles = existsSync(temporary) ? readdirSync(temporary, { recursive: true, withFileTypes: true }).filter((entry) => !entry.isDirectory() || entry.parentPath !== temporary) : [];
      assert.deepEqual(temporaryFiles.map((entry) => entry.name), [], `${context}: temporary files in the data directory`);
      assert.ok((existsSync(temporary) ? readdirSync(temporary) : []).length <= 1, `${context}: temporary directories of dead coordinators`);
      const ours = readdirSync(systemTemporary).filter((name) => name.startsWith('gantry-'));
      assert.deepEqual(ours, [], `${context}: temporary files in the system temporary directory`);
      await server.stop();
      server = undefined;
      mkdirSync(clones, { recursive: true });
    }
    assert.ok(ledger.commits.length > ROUNDS, 'the workload made progress');
  });
});
