/**
 * Memory and time of a 50 MB diff before and after GitLab's diff limits, in the same run.
 * Two commits of a generated repository: one adding a 50 MB text file (a million lines),
 * one adding 500 files of 100 KB. Each is compared with its parent three ways, each in a
 * fresh process (so one's heap does not hide another's):
 * - before: the old path (bench/support/diff-before.ts): git's output buffered, split, the
 *   JSON answer built whole;
 * - after: the repository's compare and the streamed JSON serializer, read to the end;
 * - api: `GET /repository/compare` of an in-process coordinator over loopback HTTP.
 * Each prints the RSS growth (peak over the settled baseline, sampled every 5 ms), the time and
 * the answer's size; three interleaved rounds, medians. Prints one JSON line of figures.
 * Run: node --import tsx bench/diff.ts
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { execa } from '#deps/execa';
import { comparisonJson } from '../src/coordinator/http/serializers/repository/repository.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { createRepositoryManager } from '../src/storage/git/index.ts';
import { GIT_ENV, startBenchCoordinator } from './support/coordinator.ts';
import { oldCompareAnswer } from './support/diff-before.ts';

const MB = 1024 * 1024;
const ROUNDS = 3;
type Way = 'before' | 'after' | 'api';
interface Figure {
  rss_growth_mb: number;
  ms: number;
  answer_bytes: number;
}

/** Writes `text` to fast-import, waiting for the pipe to drain. */
async function generate(gitDir: string): Promise<void> {
  const importer = execa('git', [`--git-dir=${gitDir}`, 'fast-import', '--quiet'], { stdin: 'pipe', env: GIT_ENV });
  const write = (text: string | Buffer): Promise<void> =>
    new Promise((resolve) => {
      if (importer.stdin.write(text)) resolve();
      else importer.stdin.once('drain', resolve);
    });
  const commit = async (branch: string, from: string | null, message: string, files: Array<[string, Buffer]>) => {
    await write(`commit refs/heads/${branch}\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata ${message.length}\n${message}\n${from ? `from ${from}\n` : ''}`);
    for (const [name, content] of files) {
      await write(`M 100644 inline ${name}\ndata ${content.length}\n`);
      await write(content);
      await write('\n');
    }
    await write('\n');
  };
  await commit('base', null, 'Base', [['README.md', Buffer.from('# Diff bench\n')]]);
  const line = (index: number) => `line ${String(index).padStart(7, '0')} of a big generated file, 50 bytes\n`;
  await commit('one-file', 'refs/heads/base', 'One 50 MB file', [['big.txt', Buffer.from(Array.from({ length: 1_000_000 }, (_, index) => line(index)).join(''))]]);
  const file = (index: number) => Buffer.from(Array.from({ length: 1000 }, (_, row) => `${String(index).padStart(3, '0')}:${String(row).padStart(4, '0')} ${'x'.repeat(91)}\n`).join(''));
  await commit('many-files', 'refs/heads/base', '500 files of 100 KB', Array.from({ length: 500 }, (_, index) => [`files/f${index}.txt`, file(index)]));
  importer.stdin.end();
  await importer;
}

/** The median of each figure over the rounds. */
function median(figures: Figure[]): Figure {
  const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { rss_growth_mb: middle(figures.map((figure) => figure.rss_growth_mb)), ms: middle(figures.map((figure) => figure.ms)), answer_bytes: middle(figures.map((figure) => figure.answer_bytes)) };
}

/** Peak RSS growth while `work` runs, over the baseline after a collection. */
async function measure(work: () => Promise<number>): Promise<Figure> {
  globalThis.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const started = performance.now();
  const bytes = await work();
  const ms = Math.round(performance.now() - started);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { rss_growth_mb: Math.round((peak - baseline) / MB), ms, answer_bytes: bytes };
}

async function child(way: Way, gitDir: string, from: string, to: string): Promise<Figure> {
  if (way === 'before') return measure(async () => (await oldCompareAnswer(gitDir, from, to)).length);
  if (way === 'after') {
    const manager = createRepositoryManager({ root: path.dirname(gitDir), logger: silentLogger() });
    const repository = manager.open(Number(path.basename(gitDir, '.git')));
    try {
      return await measure(async () => {
        const result = await repository.compare(from, to, true);
        let bytes = 0;
        for await (const chunk of comparisonJson({ commits: result.commits, diffs: result.diffs, sameRef: false }, { externalUrl: 'http://bench', projectFullPath: 'bench/diff' })) bytes += Buffer.byteLength(chunk);
        return bytes;
      });
    } finally {
      await manager.close();
    }
  }
  const coordinator = await startBenchCoordinator();
  try {
    const project = await coordinator.createProject({ name: 'diff-bench' });
    execFileSync('git', [`--git-dir=${path.join(coordinator.work, 'data', 'repositories', `${project.id}.git`)}`, 'fetch', '--quiet', gitDir, 'refs/heads/*:refs/heads/*'], { env: GIT_ENV });
    return await measure(async () => {
      const response = await fetch(`${coordinator.base}/api/v4/projects/${project.id}/repository/compare?from=${from}&to=${to}&straight=true`, { headers: { 'private-token': 'bench-root-token-0123456789' } });
      if (response.status !== 200) throw new Error(`compare answered ${response.status}`);
      return (await response.arrayBuffer()).byteLength;
    });
  } finally {
    await coordinator.close();
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === 'child') {
    const [, , , way, gitDir, from, to] = process.argv;
    process.stdout.write(`${JSON.stringify(await child(way as Way, gitDir!, from!, to!))}\n`);
    return;
  }
  const scratch = await mkdtemp(path.join(tmpdir(), 'gantry-bench-diff-'));
  try {
    const gitDir = path.join(scratch, '1.git');
    execFileSync('git', ['init', '--quiet', '--bare', gitDir], { env: GIT_ENV });
    await generate(gitDir);
    const sha = (ref: string) => execFileSync('git', [`--git-dir=${gitDir}`, 'rev-parse', ref], { encoding: 'utf8' }).trim();
    const figures: Record<string, Record<Way, Figure>> = {};
    for (const shape of ['one-file', 'many-files']) {
      const runs: Record<Way, Figure[]> = { before: [], after: [], api: [] };
      // Interleaved rounds, each way in a fresh process: the machine's load falls on all alike.
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const way of ['before', 'after', 'api'] as const) {
          const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', fileURLToPath(import.meta.url), 'child', way, gitDir, sha('refs/heads/base'), sha(`refs/heads/${shape}`)], { encoding: 'utf8', maxBuffer: 16 * MB });
          if (run.status !== 0) throw new Error(`${shape} ${way}: ${run.stderr}`);
          runs[way].push(JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Figure);
        }
      }
      figures[shape.replace('-', '_')] = { before: median(runs.before), after: median(runs.after), api: median(runs.api) };
    }
    process.stdout.write(`${JSON.stringify({ bench: 'diff', diff_mb: 50, ...figures })}\n`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

await main();
