/**
 * A merge request whose source changes one line in each of 1,000 files (the target moved on
 * meanwhile, so the merge is a real three-way merge), in one run, next to the git CLI doing the
 * same in a scratch clone, interleaved round by round:
 * - merge status: `MergeStatusCheck.checkNow` (merge-tree and the compare-and-set write) against
 *   `git merge-tree --write-tree`;
 * - `GET .../changes` over loopback HTTP (GitLab's limits, and `access_raw_diffs=true`), the
 *   answer read to its end, against `git diff -M --full-index` of the same range read to its end;
 * - the merge: `PUT .../merge` (merge-tree, the merge commit, the compare-and-swap, the request's
 *   bookkeeping and the push record) against `git merge --no-ff` (which also updates a worktree).
 * Gantry runs heavy git under `nice -n 10`; the CLI is timed plain (the target's baseline) and
 * niced. Each round makes a new request on the same commits with main put back (outside the
 * timing). Figures: wall time (median, min, max) and CPU time (median) of the whole process tree
 * (`cpu_ms`: the coordinator, the loopback client, the git spawner and every git), of this
 * process alone (`own_cpu_ms`) and of the processes below it (`children_cpu_ms`: for the CLI
 * rows, git's own CPU). The CPU ratios set the API's whole tree against git's own CPU. The load
 * average at the start and the end. Prints one JSON line.
 * Run: node --import tsx bench/merge.ts [rounds]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from '#deps/execa';
import { ciServicesOf, createCoordinator } from '../src/coordinator/app.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { GIT_ENV, median, ROOT_TOKEN } from './support/coordinator.ts';
import { sampleTree, type TreeSample } from './support/process-tree-cpu.ts';

const FILES = 1000;
const ROUNDS = Number(process.argv[2] ?? 7);
const TARGET_RATIO = 2;

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

/** The git CLI with its output read to the end (as a caller would), plain or niced as Gantry runs heavy git. */
function gitCli(cwd: string, args: string[], niced = false): Promise<void> {
  const [file, ...rest] = niced ? ['nice', '-n', '10', 'git', ...args] : ['git', ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(file!, rest, { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`git ${args.join(' ')}: ${code} ${stderr}`))));
  });
}

const round1 = (value: number) => Math.round(value * 10) / 10;
function summary(samples: TreeSample[]) {
  const wall = samples.map((sample) => sample.ms);
  return {
    ms_p50: round1(median(wall)), ms_min: round1(Math.min(...wall)), ms_max: round1(Math.max(...wall)),
    cpu_ms_p50: round1(median(samples.map((sample) => sample.cpuMs))), own_cpu_ms_p50: round1(median(samples.map((sample) => sample.ownCpuMs))),
    children_cpu_ms_p50: round1(median(samples.map((sample) => Math.max(sample.cpuMs - sample.ownCpuMs, 0)))),
  };
}

async function main(): Promise<void> {
  const loadAtStart = loadavg()[0] ?? 0;
  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-merge-'));
  const coordinator = await createCoordinator({ dataDir: path.join(work, 'data'), rootToken: ROOT_TOKEN, logger: silentLogger(), ci: { runTasks: false } });
  try {
    await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(coordinator.app.server.address() as AddressInfo).port}/api/v4`;
    const headers = { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' };
    const created = await fetch(`${base}/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'merge-bench' }) });
    if (created.status !== 201) throw new Error(`POST /projects: ${created.status} ${await created.text()}`);
    const projectId = ((await created.json()) as { id: number }).id;
    const { stores, repositories } = coordinator.context;
    const gitDir = repositories.open(projectId).path;
    await generate(gitDir);
    const project = (await stores.projects.findById(projectId))!;
    const root = (await stores.users.findById(1))!;
    const services = ciServicesOf(coordinator);
    const target = (await execa('git', [`--git-dir=${gitDir}`, 'rev-parse', 'refs/heads/main'], { env: GIT_ENV })).stdout.trim();
    const scratch = path.join(work, 'scratch');
    await execa('git', ['clone', '--quiet', '--no-local', gitDir, scratch], { env: GIT_ENV });

    const runs: Record<string, TreeSample[]> = {
      merge_status: [], git_merge_tree: [], git_merge_tree_niced: [],
      changes: [], changes_raw: [], git_diff: [], git_diff_niced: [],
      merge: [], git_merge: [],
    };
    const changes = async (iid: number, raw: boolean) => {
      const response = await fetch(`${base}/projects/${projectId}/merge_requests/${iid}/changes${raw ? '?access_raw_diffs=true' : ''}`, { headers });
      const body = Buffer.from(await response.arrayBuffer());
      return { status: response.status, body };
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      await execa('git', [`--git-dir=${gitDir}`, 'update-ref', 'refs/heads/main', target], { env: GIT_ENV });
      const record = await stores.mergeRequests.create(
        { project_id: projectId, source_project_id: projectId, source_branch: 'topic', target_branch: 'main', author_id: root.id, title: `Bench ${round}`, description: null, state: 'opened', created_at: new Date().toISOString() },
        {},
      );
      let mergeRequest = await services.mergeRequestRefresher.refresh(record, project, root, { announceSourceMoved: true });
      const range = [mergeRequest.base_sha!, mergeRequest.head_sha!];

      runs.merge_status!.push(await sampleTree(async () => {
        mergeRequest = await services.mergeStatusCheck.checkNow(mergeRequest, project);
      }));
      if (mergeRequest.merge_status !== 'can_be_merged') throw new Error(`merge status ${mergeRequest.merge_status}`);
      runs.git_merge_tree!.push(await sampleTree(() => gitCli(scratch, ['merge-tree', '--write-tree', target, 'origin/topic'])));
      runs.git_merge_tree_niced!.push(await sampleTree(() => gitCli(scratch, ['merge-tree', '--write-tree', target, 'origin/topic'], true)));

      for (const raw of [false, true]) {
        let answer: { status: number; body: Buffer } | undefined;
        runs[raw ? 'changes_raw' : 'changes']!.push(await sampleTree(async () => (answer = await changes(mergeRequest.iid, raw))));
        const json = JSON.parse(answer!.body.toString('utf8')) as { changes: unknown[]; changes_count: string };
        if (answer!.status !== 200 || json.changes_count !== String(FILES) || json.changes.length !== FILES) throw new Error(`changes answered ${answer!.status} ${json.changes_count}`);
      }
      const diffArgs = ['diff', '-M', '--full-index', '--no-color', ...range];
      runs.git_diff!.push(await sampleTree(() => gitCli(scratch, diffArgs)));
      runs.git_diff_niced!.push(await sampleTree(() => gitCli(scratch, diffArgs, true)));

      runs.merge!.push(await sampleTree(async () => {
        const response = await fetch(`${base}/projects/${projectId}/merge_requests/${mergeRequest.iid}/merge`, { method: 'PUT', headers, body: '{}' });
        if (response.status !== 200) throw new Error(`merge: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
      }));
      await gitCli(scratch, ['checkout', '-q', '-B', 'main', target]);
      runs.git_merge!.push(await sampleTree(() => gitCli(scratch, ['merge', '--no-ff', '-q', '-m', `Bench ${round}`, 'origin/topic'])));
    }
    const figures = Object.fromEntries(Object.entries(runs).map(([name, samples]) => [name, summary(samples)]));
    const ratio = (value: number, baseline: number) => Math.round((value / Math.max(baseline, 1)) * 100) / 100;
    // CPU: everything the API answer cost (coordinator, client, git) against git's own CPU.
    const ratios = Object.fromEntries(
      (
        [['merge_status', 'git_merge_tree'], ['changes', 'git_diff'], ['changes_raw', 'git_diff'], ['merge', 'git_merge']] as const
      ).flatMap(([name, baseline]) => [
        [`${name}_wall_ratio`, ratio(figures[name]!.ms_p50, figures[baseline]!.ms_p50)],
        [`${name}_cpu_ratio`, ratio(figures[name]!.cpu_ms_p50, figures[baseline]!.children_cpu_ms_p50)],
      ]),
    );
    process.stdout.write(`${JSON.stringify({
      bench: 'merge', files: FILES, rounds: ROUNDS, ...figures, ...ratios, target_ratio: TARGET_RATIO,
      load_average_1m_start: round1(loadAtStart), load_average_1m_end: round1(loadavg()[0] ?? 0),
    })}\n`);
  } finally {
    await coordinator.close();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
