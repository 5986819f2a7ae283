/**
 * The merge of a merge request changing 1,000 files, through the API (`PUT .../merge`: the
 * in-memory merge, the merge commit, the compare-and-swap, the request's bookkeeping and the
 * push record) next to the git CLI doing the same merge in a scratch clone
 * (`git merge --no-ff`), in the same run, interleaved. Both merges are real three-way merges:
 * the target moved (its README) since the source branched. Each round puts main back on the same
 * target commit first (outside the timing). Figures: wall time and CPU time (this process and
 * every process below it, git included, from /proc), medians over the rounds, and the load
 * average at the start. Prints one JSON line.
 * Run: node --import tsx bench/merge.ts [rounds]
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from '#deps/execa';
import { createCoordinator } from '../src/coordinator/app.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { GIT_ENV, ROOT_TOKEN } from './support/coordinator.ts';

const FILES = 1000;
const ROUNDS = Number(process.argv[2] ?? 5);
const TICKS_PER_SECOND = 100;

interface Figure {
  ms: number;
  cpuMs: number;
}

/** utime, stime, cutime and cstime of a process, in clock ticks (fields 14 to 17 of /proc/<pid>/stat). */
function ticksOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
}

function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) => {
    const listed = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    return listed === '' ? [] : listed.split(' ').map(Number);
  });
}

/**
 * CPU milliseconds of this process and everything below it: exited children are in its
 * cutime/cstime, live ones (the git spawner helper, whose git processes are its children) are
 * read from /proc.
 */
function treeTicks(pid: number): number {
  try {
    return ticksOf(pid) + childrenOf(pid).reduce((sum, child) => sum + treeTicks(child), 0);
  } catch {
    return 0; // exited while being read
  }
}

function cpuMs(): number {
  return treeTicks(process.pid) * (1000 / TICKS_PER_SECOND);
}

async function measure(work: () => Promise<unknown>): Promise<Figure> {
  const cpuBefore = cpuMs();
  const started = performance.now();
  await work();
  return { ms: performance.now() - started, cpuMs: cpuMs() - cpuBefore };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const git = (gitDir: string, args: string[]): string => execFileSync('git', [`--git-dir=${gitDir}`, ...args], { env: GIT_ENV, encoding: 'utf8' }).trim();

/** The source branch changes every file of the base; main then changes its README. */
async function generate(gitDir: string): Promise<void> {
  const importer = execa('git', [`--git-dir=${gitDir}`, 'fast-import', '--quiet'], { stdin: 'pipe', env: GIT_ENV });
  const chunks: string[] = [];
  const commit = (branch: string, mark: number, from: string, message: string, files: Array<[string, string]>) => {
    chunks.push(`commit refs/heads/${branch}\nmark :${mark}\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata ${message.length}\n${message}\nfrom ${from}\n`);
    for (const [name, content] of files) chunks.push(`M 100644 inline ${name}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
    chunks.push('\n');
  };
  const file = (index: number, version: string) => Array.from({ length: 40 }, (_, line) => `${version} file ${index} line ${line}\n`).join('');
  const indexes = Array.from({ length: FILES }, (_, index) => index);
  commit('main', 1, 'refs/heads/main^0', 'Base', indexes.map((index) => [`src/f${index}.txt`, file(index, 'base')]));
  commit('feature', 2, ':1', 'Change every file', indexes.map((index) => [`src/f${index}.txt`, `${file(index, 'base')}feature line\n`]));
  commit('main', 3, ':1', 'Move the target', [['README.md', '# Moved target\n']]);
  importer.stdin.end(chunks.join(''));
  await importer;
}

async function main(): Promise<void> {
  const load = loadavg()[0];
  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-merge-'));
  const coordinator = await createCoordinator({ dataDir: path.join(work, 'data'), rootToken: ROOT_TOKEN, logger: silentLogger() });
  try {
    await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(coordinator.app.server.address() as AddressInfo).port}/api/v4`;
    const headers = { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' };
    const created = await fetch(`${base}/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'merge-bench', initialize_with_readme: true, default_branch: 'main' }) });
    if (created.status !== 201) throw new Error(`POST /projects: ${created.status} ${await created.text()}`);
    const project = (await created.json()) as { id: number; owner: { id: number } };
    const { stores, repositories } = coordinator.context;
    const gitDir = repositories.open(project.id).path;
    await generate(gitDir);
    const target = git(gitDir, ['rev-parse', 'refs/heads/main']);
    const changed = git(gitDir, ['diff', '--name-only', `${target}...refs/heads/feature`]).split('\n').length;

    const scratch = path.join(work, 'scratch');
    execFileSync('git', ['clone', '-q', '--no-local', gitDir, scratch], { env: GIT_ENV });
    const inScratch = (args: string[]) => execa('git', ['-C', scratch, ...args], { env: GIT_ENV });

    const api: Figure[] = [];
    const cli: Figure[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      git(gitDir, ['update-ref', 'refs/heads/main', target]);
      const request = await stores.mergeRequests.create(
        { project_id: project.id, source_project_id: project.id, source_branch: 'feature', target_branch: 'main', author_id: 1, title: `Bench ${round}`, description: null, state: 'opened', created_at: new Date().toISOString() },
        {},
      );
      api.push(
        await measure(async () => {
          const response = await fetch(`${base}/projects/${project.id}/merge_requests/${request.iid}/merge`, { method: 'PUT', headers, body: '{}' });
          if (response.status !== 200) throw new Error(`merge: ${response.status} ${await response.text()}`);
          await response.arrayBuffer();
        }),
      );
      await inScratch(['checkout', '-q', '-B', 'main', target]);
      cli.push(await measure(() => inScratch(['merge', '--no-ff', '-q', '-m', `Bench ${round}`, 'origin/feature'])));
    }
    const figures = {
      apiMs: median(api.map((figure) => figure.ms)),
      apiCpuMs: median(api.map((figure) => figure.cpuMs)),
      gitCliMs: median(cli.map((figure) => figure.ms)),
      gitCliCpuMs: median(cli.map((figure) => figure.cpuMs)),
    };
    const round1 = (value: number) => Math.round(value * 10) / 10;
    console.log(
      JSON.stringify({
        bench: 'merge',
        changed_files: changed,
        rounds: ROUNDS,
        api_ms_p50: round1(figures.apiMs),
        api_cpu_ms_p50: round1(figures.apiCpuMs),
        git_cli_ms_p50: round1(figures.gitCliMs),
        git_cli_cpu_ms_p50: round1(figures.gitCliCpuMs),
        wall_ratio: round1(figures.apiMs / figures.gitCliMs),
        cpu_ratio: round1(figures.apiCpuMs / figures.gitCliCpuMs),
        target_ratio: 2,
        load_average_1m: round1(load ?? 0),
      }),
    );
  } finally {
    await coordinator.close();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
