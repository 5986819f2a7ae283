/**
 * A commit of 10,000 actions through `POST /api/v4/projects/:id/repository/commits` (target:
 * under 5 s), printed as one JSON line next to two baselines measured in the same run on the
 * same 10,000 files: the git CLI committing them from a work tree (`git add` + `git commit`,
 * files already written), and one `git fast-import` of them into a scratch bare repository,
 * plain and with the allocator setting the coordinator gives bulk git processes
 * (BULK_GIT_ENVIRONMENT: on machines where `brk` is slow, plain git spends seconds in it).
 * Run: node --import tsx bench/abuse-commit.ts [actions]
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { createCoordinator } from '../src/coordinator/app.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { BULK_GIT_ENVIRONMENT } from '../src/storage/git/blob-batch.ts';

const ACTIONS = Number(process.argv[2] ?? 10_000);
const ROOT_TOKEN = 'bench-root-token-0123456789';
const GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: tmpdir(),
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

const filePath = (index: number): string => `dir-${index % 100}/file-${index}.txt`;
const content = (index: number): string => `line one of file ${index}\nline two\n`;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return Math.round(performance.now() - started);
}

async function viaApi(work: string): Promise<{ ms: number; warmUpMs: number }> {
  const coordinator = await createCoordinator({ dataDir: path.join(work, 'gantry'), rootToken: ROOT_TOKEN, logger: silentLogger() });
  try {
    await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(coordinator.app.server.address() as AddressInfo).port}/api/v4`;
    const headers = { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' };
    const created = await fetch(`${base}/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'abuse', initialize_with_readme: true }) });
    const project = (await created.json()) as { id: number };
    const commit = async (branch: string, count: number): Promise<void> => {
      const actions = Array.from({ length: count }, (_, index) => ({ action: 'create', file_path: filePath(index), content: content(index) }));
      const body = JSON.stringify({ branch, start_branch: 'main', commit_message: `${count} files`, actions });
      const response = await fetch(`${base}/projects/${project.id}/repository/commits`, { method: 'POST', headers, body });
      if (response.status !== 201) throw new Error(`commit: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    };
    const warmUpMs = await timed(() => commit('warm-up', 100));
    return { ms: await timed(() => commit('abuse', ACTIONS)), warmUpMs };
  } finally {
    await coordinator.close();
  }
}

async function gitAddCommit(work: string): Promise<number> {
  const tree = path.join(work, 'work-tree');
  await execa('git', ['init', '--quiet', tree], { env: GIT_ENV });
  for (let directory = 0; directory < 100; directory += 1) await mkdir(path.join(tree, `dir-${directory}`), { recursive: true });
  for (let index = 0; index < ACTIONS; index += 1) await writeFile(path.join(tree, filePath(index)), content(index));
  return timed(async () => {
    await execa('git', ['add', '--all'], { cwd: tree, env: GIT_ENV });
    await execa('git', ['commit', '--quiet', '-m', `${ACTIONS} files`], { cwd: tree, env: GIT_ENV });
  });
}

/** One fast-import of the files as a commit; `extraEnv` as the coordinator runs it (BULK_GIT_ENVIRONMENT) or not. */
async function fastImport(work: string, name: string, extraEnv: Record<string, string> = {}): Promise<number> {
  const gitDir = path.join(work, `${name}.git`);
  await execa('git', ['init', '--bare', '--quiet', gitDir], { env: GIT_ENV });
  const chunks = [`commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 5\nfiles\n`];
  for (let index = 0; index < ACTIONS; index += 1) {
    const text = content(index);
    chunks.push(`M 100644 inline ${filePath(index)}\ndata ${Buffer.byteLength(text)}\n${text}\n`);
  }
  const stream = chunks.join('');
  return timed(() => execa('git', [`--git-dir=${gitDir}`, 'fast-import', '--quiet'], { input: stream, env: { ...GIT_ENV, ...extraEnv } }));
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-abuse-'));
  try {
    const api = await viaApi(work);
    const addCommit = await gitAddCommit(work);
    const imported = await fastImport(work, 'plain');
    const importedTuned = await fastImport(work, 'tuned', { ...BULK_GIT_ENVIRONMENT });
    console.log(
      JSON.stringify({
        actions: ACTIONS,
        api_commit_ms: api.ms,
        api_commit_target_ms: 5000,
        api_warm_up_100_actions_ms: api.warmUpMs,
        baseline_git_add_commit_ms: addCommit,
        baseline_git_fast_import_ms: imported,
        baseline_git_fast_import_bulk_env_ms: importedTuned,
        api_vs_git_add_commit: Math.round((api.ms / addCommit) * 100) / 100,
      }),
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
