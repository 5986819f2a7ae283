/**
 * A commit of many actions (default 10,000) through `POST /api/v4/projects/:id/repository/commits`
 * (target: under 5 s), next to baselines measured in the same run on the same files: a
 * one-action commit through the API, the git CLI committing them from a work tree (`git add` +
 * `git commit`, files already written), and one `git fast-import` of them into a scratch bare
 * repository, plain and with the allocator setting the coordinator gives bulk git processes
 * (BULK_GIT_ENVIRONMENT: on machines where `brk` is slow, plain git spends seconds in it).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from '#deps/execa';
import { BULK_GIT_ENVIRONMENT } from '../../src/storage/git/blob-batch.ts';
import { type BenchCoordinator, GIT_ENV, ROOT_TOKEN, timed } from './coordinator.ts';

export const COMMIT_TARGET_MS = 5000;

export interface AbuseCommitFigures {
  actions: number;
  api_commit_ms: number;
  api_warm_up_100_actions_ms: number;
  baseline_api_commit_1_action_ms: number;
  baseline_git_add_commit_ms: number;
  baseline_git_fast_import_ms: number;
  baseline_git_fast_import_bulk_env_ms: number;
  api_vs_git_add_commit: number;
}

const filePath = (index: number): string => `dir-${index % 100}/file-${index}.txt`;
const content = (index: number): string => `line one of file ${index}\nline two\n`;

/** Times commits through the API: a 100-action warm-up, one action, then `actions` actions, each on its own branch. */
async function viaApi(coordinator: BenchCoordinator, actions: number): Promise<{ ms: number; warmUpMs: number; oneActionMs: number }> {
  const project = await coordinator.createProject({ name: 'abuse-commit', initialize_with_readme: true });
  const headers = { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' };
  const commit = async (branch: string, count: number): Promise<void> => {
    const list = Array.from({ length: count }, (_, index) => ({ action: 'create', file_path: filePath(index), content: content(index) }));
    const body = JSON.stringify({ branch, start_branch: 'main', commit_message: `${count} files`, actions: list });
    const response = await fetch(`${coordinator.base}/api/v4/projects/${project.id}/repository/commits`, { method: 'POST', headers, body });
    if (response.status !== 201) throw new Error(`commit: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const warmUpMs = await timed(() => commit('warm-up', 100));
  const oneActionMs = await timed(() => commit('one-action', 1));
  return { ms: await timed(() => commit('abuse', actions)), warmUpMs, oneActionMs };
}

async function gitAddCommit(work: string, actions: number): Promise<number> {
  const tree = path.join(work, 'work-tree');
  await execa('git', ['init', '--quiet', tree], { env: GIT_ENV, extendEnv: false });
  for (let directory = 0; directory < 100; directory += 1) await mkdir(path.join(tree, `dir-${directory}`), { recursive: true });
  for (let index = 0; index < actions; index += 1) await writeFile(path.join(tree, filePath(index)), content(index));
  return timed(async () => {
    await execa('git', ['add', '--all'], { cwd: tree, env: GIT_ENV, extendEnv: false });
    await execa('git', ['commit', '--quiet', '-m', `${actions} files`], { cwd: tree, env: GIT_ENV, extendEnv: false });
  });
}

/** One fast-import of the files as a commit; `extraEnv` as the coordinator runs it (BULK_GIT_ENVIRONMENT) or not. */
async function fastImport(work: string, name: string, actions: number, extraEnv: Record<string, string> = {}): Promise<number> {
  const gitDir = path.join(work, `${name}.git`);
  await execa('git', ['init', '--bare', '--quiet', gitDir], { env: GIT_ENV, extendEnv: false });
  const chunks = [`commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 5\nfiles\n`];
  for (let index = 0; index < actions; index += 1) {
    const text = content(index);
    chunks.push(`M 100644 inline ${filePath(index)}\ndata ${Buffer.byteLength(text)}\n${text}\n`);
  }
  const stream = chunks.join('');
  return timed(() => execa('git', [`--git-dir=${gitDir}`, 'fast-import', '--quiet'], { input: stream, env: { ...GIT_ENV, ...extraEnv }, extendEnv: false }));
}

export async function abuseCommit(coordinator: BenchCoordinator, actions = 10_000): Promise<AbuseCommitFigures> {
  const work = path.join(coordinator.work, 'commit');
  await mkdir(work, { recursive: true });
  const api = await viaApi(coordinator, actions);
  const addCommit = await gitAddCommit(work, actions);
  const imported = await fastImport(work, 'plain', actions);
  const importedTuned = await fastImport(work, 'tuned', actions, { ...BULK_GIT_ENVIRONMENT });
  return {
    actions,
    api_commit_ms: api.ms,
    api_warm_up_100_actions_ms: api.warmUpMs,
    baseline_api_commit_1_action_ms: api.oneActionMs,
    baseline_git_add_commit_ms: addCommit,
    baseline_git_fast_import_ms: imported,
    baseline_git_fast_import_bulk_env_ms: importedTuned,
    api_vs_git_add_commit: Math.round((api.ms / addCommit) * 100) / 100,
  };
}
