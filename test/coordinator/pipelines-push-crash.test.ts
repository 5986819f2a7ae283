import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../src/storage/sql/database.ts';
import { createSqlStores } from '../../src/storage/sql/stores/index.ts';
import type { PipelineRecord } from '../../src/storage/types-ci.ts';
import { within, withinOrKill } from '../helpers/bounded.ts';
import { freePort } from '../helpers/serve-process.ts';
import { scriptArgs } from '../helpers/script-args.ts';

const TOKEN = 'push-crash-root-token-0123456789';
const CHILD = path.resolve(import.meta.dirname, '../helpers/coordinator-child.ts');
const CI = 'build:\n  script: make\n';

interface Child {
  process: ChildProcess;
  exited: Promise<void>;
}

async function startChild(dataDir: string, port: number, runTasks: boolean): Promise<Child> {
  const child = spawn(process.execPath, [...scriptArgs(CHILD), dataDir, String(port), TOKEN], {
    env: { ...process.env, GANTRY_TEST_RUN_TASKS: runTasks ? '1' : '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const listening = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening')) resolve();
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', () => reject(new Error(`the coordinator exited:\n${output}`)));
  });
  await withinOrKill(child, listening, 120_000, 'the coordinator saying it listens', { group: true });
  return { process: child, exited };
}

async function killHard(child: Child): Promise<void> {
  if (child.process.pid !== undefined && child.process.exitCode === null && child.process.signalCode === null) process.kill(-child.process.pid, 'SIGKILL');
  await within(child.exited, 60_000, 'the coordinator exiting after SIGKILL');
}

function git(args: string[], cwd: string): Promise<string> {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com',
  };
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env, timeout: 60_000 }, (error, stdout, stderr) => (error ? reject(new Error(`git ${args.join(' ')}: ${stderr}`)) : resolve(stdout.trim())));
  });
}

describe('a push acknowledged just before the coordinator is killed', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-push-crash-'));
  const children: Child[] = [];
  after(async () => {
    for (const child of children) await killHard(child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gets its pipeline once the coordinator starts again (and only one)', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    // This coordinator records tasks but never runs them: what the push left behind is all there is.
    const first = await startChild(dataDir, port, false);
    children.push(first);
    const headers = { 'PRIVATE-TOKEN': TOKEN, 'content-type': 'application/json' };
    const created = await fetch(`${baseUrl}/api/v4/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'app', initialize_with_readme: true }) });
    assert.equal(created.status, 201);
    const project = (await created.json()) as { id: number; path_with_namespace: string };
    // An API commit is a push too.
    const committed = await fetch(`${baseUrl}/api/v4/projects/${project.id}/repository/commits`, {
      method: 'POST', headers, body: JSON.stringify({ branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }] }),
    });
    assert.equal(committed.status, 201);
    const apiSha = ((await committed.json()) as { id: string }).id;

    const work = path.join(dataDir, 'client');
    mkdirSync(work);
    await git(['clone', `http://root:${TOKEN}@127.0.0.1:${port}/${project.path_with_namespace}.git`, 'app'], work);
    const cwd = path.join(work, 'app');
    writeFileSync(path.join(cwd, 'more.txt'), 'more\n');
    await git(['add', '.'], cwd);
    await git(['commit', '-m', 'more'], cwd);
    await git(['push', 'origin', 'HEAD:main'], cwd);
    const pushedSha = await git(['rev-parse', 'HEAD'], cwd);
    await killHard(first);

    const second = await startChild(dataDir, port, true);
    children.push(second);
    const database = openDatabase(path.join(dataDir, 'gantry.sqlite3'));
    try {
      const stores = createSqlStores(database.db);
      let pipelines: PipelineRecord[] = [];
      for (let attempt = 0; attempt < 400 && pipelines.length < 2; attempt++) {
        pipelines = (await stores.pipelines.list({ projectId: project.id, sort: 'asc' }, { offset: 0, limit: 10 })).items;
        if (pipelines.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(pipelines.map((pipeline) => [pipeline.sha, pipeline.source]).sort(), [[apiSha, 'push'], [pushedSha, 'push']].sort());
      const statusOf = (sha: string) => pipelines.find((pipeline) => pipeline.sha === sha)?.status;
      assert.equal(statusOf(pushedSha), 'pending', "the branch head's pipeline");
      // The older commit's pipeline is redundant once the head's exists: auto-canceled if it was created first.
      assert.ok(['pending', 'canceled'].includes(statusOf(apiSha) ?? ''), String(statusOf(apiSha)));
      // The tasks are gone: running the worker again creates nothing more.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal((await stores.pipelines.list({ projectId: project.id }, { offset: 0, limit: 10 })).total, 2);
      assert.deepEqual((await stores.tasks.counts(new Date().toISOString())).filter((count) => count.kind === 'pipeline.create-for-push' && count.ready + count.running + count.dead > 0), []);
    } finally {
      await database.close();
    }
  });
});
