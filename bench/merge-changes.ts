/**
 * A merge request of 1,000 changed files, next to the git CLI doing the same in a scratch clone,
 * in the same run:
 * - `GET .../changes` over loopback HTTP (GitLab's limits: files past the safe totals collapsed),
 *   and with `access_raw_diffs=true` (every patch written), against `git diff -M --full-index
 *   base head` read to the end;
 * - the merge status check (`MergeStatusCheck.checkNow`: merge-tree plus the compare-and-set
 *   write) against `git merge-tree --write-tree main topic`.
 * Gantry runs heavy git under `nice -n 10`; the CLI runs both plain and niced alike (on a loaded
 * machine the niced figures are the like-for-like baseline). Interleaved rounds, medians of wall time and of CPU time: the coordinator process's own
 * (process.cpuUsage; its git children run under the spawner helper and are not in it) and the
 * git CLI's (`/usr/bin/time`). Prints one JSON line with the load average when it ended.
 * Run: node --import tsx bench/merge-changes.ts
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from '#deps/execa';
import { ciServicesOf, createCoordinator } from '../src/coordinator/app.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { GIT_ENV, median, ROOT_TOKEN } from './support/coordinator.ts';

const FILES = 1000;
const ROUNDS = 7;

interface Sample {
  ms: number;
  cpuMs: number;
}

/** A base of FILES files; `topic` changes one line in each; `main` moves on with a README edit. */
async function generate(gitDir: string): Promise<void> {
  const importer = execa('git', [`--git-dir=${gitDir}`, 'fast-import', '--quiet'], { stdin: 'pipe', env: GIT_ENV });
  const lines: string[] = [];
  const commit = (branch: string, from: string | null, message: string, files: Array<[string, string]>) => {
    lines.push(`commit refs/heads/${branch}`, 'committer Bench <bench@example.com> 1700000000 +0000', `data ${message.length}`, message);
    if (from) lines.push(`from ${from}`);
    for (const [name, content] of files) lines.push(`M 100644 inline ${name}`, `data ${Buffer.byteLength(content)}`, content);
    lines.push('');
  };
  const body = (index: number, changed: boolean) => Array.from({ length: 40 }, (_, row) => (changed && row === 20 ? `changed line of file ${index}` : `file ${index} line ${row} ${'x'.repeat(40)}`)).join('\n') + '\n';
  commit('main', null, 'Base', [['README.md', '# bench\n'], ...Array.from({ length: FILES }, (_, index): [string, string] => [`src/f${index}.txt`, body(index, false)])]);
  commit('topic', 'refs/heads/main', 'Change every file', Array.from({ length: FILES }, (_, index): [string, string] => [`src/f${index}.txt`, body(index, true)]));
  commit('main', null, 'Main moves on', [['README.md', '# bench, moved on\n']]);
  importer.stdin.end(`${lines.join('\n')}\n`);
  await importer;
}

async function sample(work: () => Promise<unknown>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

/** The git CLI under /usr/bin/time: wall time, and git's own CPU time; `niced` as Gantry runs its heavy git (nice -n 10). */
function gitCli(cwd: string, args: string[], niced = false): Sample {
  const started = performance.now();
  const run = spawnSync('/usr/bin/time', ['-f', '%U %S', ...(niced ? ['nice', '-n', '10'] : []), 'git', ...args], { cwd, env: GIT_ENV, maxBuffer: 512 * 1024 * 1024 });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr.toString()}`);
  const [user = 0, system = 0] = run.stderr.toString().trim().split('\n').at(-1)!.split(' ').map(Number);
  return { ms, cpuMs: (user + system) * 1000 };
}

const round2 = (value: number) => Math.round(value * 100) / 100;
function summary(samples: Sample[]): { ms: number; cpu_ms: number } {
  return { ms: round2(median(samples.map((s) => s.ms))), cpu_ms: round2(median(samples.map((s) => s.cpuMs))) };
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-merge-changes-'));
  const coordinator = await createCoordinator({ dataDir: path.join(work, 'data'), rootToken: ROOT_TOKEN, logger: silentLogger(), ci: { runTasks: false } });
  try {
    await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(coordinator.app.server.address() as AddressInfo).port}`;
    const headers = { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' };
    const created = await fetch(`${base}/api/v4/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'merge-bench' }) });
    const projectId = ((await created.json()) as { id: number }).id;
    const { stores, repositories } = coordinator.context;
    const gitDir = repositories.open(projectId).path;
    await generate(gitDir);
    const project = (await stores.projects.findById(projectId))!;
    const root = (await stores.users.findById(1))!;
    const record = await stores.mergeRequests.create(
      { project_id: projectId, source_project_id: projectId, source_branch: 'topic', target_branch: 'main', author_id: root.id, title: 'Bench', description: null, state: 'opened', created_at: new Date().toISOString() },
      {},
    );
    const services = ciServicesOf(coordinator);
    let mergeRequest = await services.mergeRequestRefresher.refresh(record, project, root, { announceSourceMoved: true });
    const clone = path.join(work, 'clone');
    execFileSync('git', ['clone', '--quiet', '--no-checkout', gitDir, clone], { env: GIT_ENV });
    execFileSync('git', ['branch', '--quiet', 'topic', 'origin/topic'], { cwd: clone, env: GIT_ENV });
    const range = [mergeRequest.base_sha!, mergeRequest.head_sha!];

    const changes = async (raw: boolean) => {
      const response = await fetch(`${base}/api/v4/projects/${projectId}/merge_requests/${mergeRequest.iid}/changes${raw ? '?access_raw_diffs=true' : ''}`, { headers });
      const json = (await response.json()) as { changes: unknown[]; changes_count: string };
      if (response.status !== 200 || json.changes_count !== String(FILES)) throw new Error(`changes answered ${response.status} ${json.changes_count}`);
    };
    const runs: Record<string, Sample[]> = { changes: [], changes_raw: [], git_diff: [], git_diff_niced: [], merge_status: [], git_merge_tree: [], git_merge_tree_niced: [] };
    const diffArgs = ['diff', '-M', '--full-index', '--no-color', ...range];
    const mergeTreeArgs = ['merge-tree', '--write-tree', 'origin/main', 'topic'];
    for (let round = 0; round < ROUNDS; round += 1) {
      runs.changes!.push(await sample(() => changes(false)));
      runs.changes_raw!.push(await sample(() => changes(true)));
      runs.git_diff!.push(gitCli(clone, diffArgs));
      runs.git_diff_niced!.push(gitCli(clone, diffArgs, true));
      runs.merge_status!.push(await sample(async () => {
        mergeRequest = await services.mergeStatusCheck.checkNow(mergeRequest, project);
        if (mergeRequest.merge_status !== 'can_be_merged') throw new Error(`merge status ${mergeRequest.merge_status}`);
      }));
      runs.git_merge_tree!.push(gitCli(clone, mergeTreeArgs));
      runs.git_merge_tree_niced!.push(gitCli(clone, mergeTreeArgs, true));
    }
    const figures = Object.fromEntries(Object.entries(runs).map(([name, samples]) => [name, summary(samples)]));
    const ratio = (name: string, baseline: string) => round2(figures[name]!.ms / figures[baseline]!.ms);
    process.stdout.write(`${JSON.stringify({
      bench: 'merge-changes', files: FILES, rounds: ROUNDS, ...figures,
      changes_vs_git_diff: ratio('changes', 'git_diff'), changes_raw_vs_git_diff: ratio('changes_raw', 'git_diff'), merge_status_vs_git_merge_tree: ratio('merge_status', 'git_merge_tree'),
      changes_vs_niced_git_diff: ratio('changes', 'git_diff_niced'), merge_status_vs_niced_git_merge_tree: ratio('merge_status', 'git_merge_tree_niced'),
      loadavg_1m: round2(loadavg()[0]!),
    })}\n`);
  } finally {
    await coordinator.close();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
