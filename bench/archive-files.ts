/**
 * The runner's archive code on a tree of many small files, printed as one JSON line, each
 * operation next to the system tool doing the same, measured in the same run:
 *  - `pack_extract`: `packDirectory` piped into `extractInto` (src/executors/tar.ts, with the
 *    options of the shell executor's copyIn), the shell executor's copyOut/copyIn pair that an
 *    artifact's or a cache's collection goes through; baseline `tar cf - -C src . | tar xf - -C dest`;
 *  - `pack`: `packDirectory` alone, drained into a counting Writable (the docker executor's copy
 *    of the sources into a container); baseline `tar cf - -C src . | wc -c` (not `> /dev/null`:
 *    GNU tar then skips reading the files);
 *  - `zip`: `stagedEntries` then `writeZip(entries, file, 1)` (src/runner/job/archive/write.ts),
 *    an artifact's or a cache's zip; baseline `zip -qr1 file .` run in the tree;
 *  - `unzip`: `zipAsTar` (src/runner/job/archive/read-zip.ts) piped into `extractInto` with
 *    `anySymlinkTarget`, a dependency's artifacts or a cache extracted; baseline `unzip -q`. Both
 *    read the same file, the one `zip -qr1` made (so a change to writeZip does not move it).
 * The tree (bench/support/large-repository.ts's `writeSourceTree`, deterministic): `--files`
 * files of 1–12 KB in 122 nested directories, plus `--large` files of 1 MB. Every directory
 * lives under `--dir` (default /dev/shm when it exists, else the temporary directory: this
 * machine's ext4 root is slow to create files soon after many deletions, which drowns the
 * figures). Each destination is removed between runs, outside the timed part.
 * Per operation: the median of `--runs` runs of our wall ms (`*_ms`) and CPU ms (`*_cpu_ms`,
 * user + system of this process from process.cpuUsage around the call: the bench runs the
 * runner's code in-process) and of the baseline's (`*_baseline_ms`, `*_baseline_cpu_ms`, both
 * taken in the bash that runs the command: wall from $EPOCHREALTIME around it, CPU from its
 * `times` for the children, so bash's own start is in neither), each with its spread
 * (`*_spread`: the least and the most), and the ratios of the medians, ours / baseline
 * (`*_ratio` wall, `*_cpu_ratio` CPU). Ours and the baseline alternate, run by run. Before the
 * timed runs, each side runs once unmeasured and its output is checked (file count, total
 * bytes, a sampled large and small file byte for byte; for `pack` the byte count, and ours
 * unpacked by GNU tar), so a
 * broken implementation cannot look fast. `load_average`: the 1-minute load average before the
 * first operation and after the last (the machine may be shared).
 * Needs GNU tar, zip and unzip (Debian: `apt-get install -y zip unzip`).
 * `--only` runs some of the operations (comma-separated names).
 * Run: npx tsx bench/archive-files.ts [--runs 5] [--files 5000] [--large 3] [--dir /dev/shm] [--only pack_extract,pack,zip,unzip]
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { extractInto, packDirectory, pump } from '../src/executors/tar.ts';
import { zipAsTar } from '../src/runner/job/archive/read-zip.ts';
import { stagedEntries, writeZip } from '../src/runner/job/archive/write.ts';
import { writeSourceTree } from './support/large-repository.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    files: { type: 'string', default: '5000' },
    large: { type: 'string', default: '3' },
    only: { type: 'string', default: 'pack_extract,pack,zip,unzip' },
    dir: { type: 'string', default: existsSync('/dev/shm') ? '/dev/shm' : tmpdir() },
  },
});
const runs = Number(values.runs);
const fileCount = Number(values.files);
const largeCount = Number(values.large);
for (const [flag, value, least] of [['runs', runs, 1], ['files', fileCount, 1], ['large', largeCount, 0]] as const) {
  if (!Number.isInteger(value) || value < least) throw new Error(`--${flag} must be an integer of at least ${least}, got ${value}`);
}

interface Sample {
  ms: number;
  cpuMs: number;
}

const round = (value: number, places = 1): number => Math.round(value * 10 ** places) / 10 ** places;
const median = (list: number[]): number => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const spread = (list: number[]): [number, number] => [round(Math.min(...list)), round(Math.max(...list))];

/** Wall and CPU time (this process, every thread) of running the runner's code. */
async function ours(operation: () => Promise<unknown>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await operation();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

/** `command` run by bash in `cwd`, timed there: its wall time and its processes' CPU time (bash's `times`, children line). */
function baseline(command: string, cwd: string): Sample & { stdout: string } {
  const script = `s=$EPOCHREALTIME; { ${command}; } > "$BENCH_OUT" || exit 1; e=$EPOCHREALTIME; echo "$s $e"; times`;
  const out = path.join(work, 'baseline-stdout');
  const result = spawnSync('bash', ['-c', script], { cwd, encoding: 'utf8', env: { ...process.env, BENCH_OUT: out } });
  if (result.status !== 0) throw new Error(`${command} failed (${result.status}): ${result.stderr}`);
  const [clock, , children] = result.stdout.trim().split('\n');
  const [start, end] = clock!.split(' ').map(Number);
  const seconds = (text: string): number => {
    const [, minutes, rest] = /^(\d+)m([\d.]+)s$/.exec(text) ?? [];
    if (minutes === undefined || rest === undefined) throw new Error(`unexpected times output: ${result.stdout}`);
    return Number(minutes) * 60 + Number(rest);
  };
  const [user, system] = children!.split(' ').map(seconds);
  return { ms: (end! - start!) * 1000, cpuMs: (user! + system!) * 1000, stdout: readFileSync(out, 'utf8') };
}

/** Regular files below `root` (relative names) with their sizes. */
function listFiles(root: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const absolute = path.join(entry.parentPath, entry.name);
      found.set(path.relative(root, absolute), statSync(absolute).size);
    }
  }
  return found;
}

const work = mkdtempSync(path.join(values.dir, 'gantry-bench-archive-'));
// The work directory is some 80 MB of memory under /dev/shm: an interrupted run removes it too.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    rmSync(work, { recursive: true, force: true });
    process.exit(130);
  });
}
try {
  const source = path.join(work, 'source');
  mkdirSync(source);
  const tree = writeSourceTree(source, { files: fileCount, largeFiles: largeCount });
  // Only the sample names are kept: with a listing of the tree kept alive, packDirectory took
  // about twice as long here, the difference mostly garbage collection.
  const samples = (() => {
    const names = [...listFiles(source).keys()].sort();
    return [names[Math.floor(names.length / 2)]!, ...names.filter((name) => name.endsWith('.js')).slice(0, 1)];
  })();

  /** Throws unless `dest` holds the source's files: the same count and total size, the samples byte for byte. */
  const verify = (label: string, dest: string): void => {
    const found = listFiles(dest);
    const bytes = [...found.values()].reduce((sum, size) => sum + size, 0);
    if (found.size !== tree.files || bytes !== tree.bytes) throw new Error(`${label}: ${found.size} files of ${bytes} bytes, expected ${tree.files} of ${tree.bytes}`);
    for (const name of samples) {
      if (!readFileSync(path.join(source, name)).equals(readFileSync(path.join(dest, name)))) throw new Error(`${label}: ${name} differs`);
    }
  };
  const dest = path.join(work, 'dest');
  const ourZip = path.join(work, 'ours.zip');
  const toolZip = path.join(work, 'tool.zip');
  const clean = (): void => {
    rmSync(dest, { recursive: true, force: true });
    rmSync(ourZip, { force: true });
  };

  interface Operation {
    name: string;
    ours: () => Promise<void>;
    baseline: { command: string; cwd: string };
    /** Checks the outputs of one unmeasured run of each side, `baselineStdout` being the baseline's. */
    check: (side: 'ours' | 'baseline', baselineStdout: string) => void | Promise<void>;
  }
  let packedBytes = 0;
  const operations: Operation[] = [
    {
      name: 'pack_extract',
      ours: () => extractInto(packDirectory(source), dest, undefined, { anySymlinkTarget: true }),
      baseline: { command: `mkdir -p '${dest}' && tar cf - -C '${source}' . | tar xf - -C '${dest}'`, cwd: work },
      check: (side) => verify(`pack_extract ${side}`, dest),
    },
    {
      name: 'pack',
      ours: async () => {
        packedBytes = 0;
        const counter = new Writable({
          write(chunk: Buffer, _encoding, callback) {
            packedBytes += chunk.length;
            callback();
          },
        });
        await pump(packDirectory(source), counter);
      },
      baseline: { command: `tar cf - -C '${source}' . | wc -c`, cwd: work },
      check: async (side, stdout) => {
        const bytes = side === 'ours' ? packedBytes : Number(stdout.trim());
        // A tar of the tree: every file's bytes plus at least a 512-byte header each.
        if (!(bytes >= tree.bytes + tree.files * 512)) throw new Error(`pack ${side}: ${bytes} bytes for ${tree.bytes} bytes of files`);
        if (side === 'baseline') return;
        // And GNU tar reads ours back into the same tree.
        mkdirSync(dest);
        const untar = spawn('tar', ['xf', '-', '-C', dest], { stdio: ['pipe', 'ignore', 'inherit'] });
        const exited = once(untar, 'close');
        await pump(packDirectory(source), untar.stdin);
        const [code] = (await exited) as [number | null];
        if (code !== 0) throw new Error(`pack ours: tar xf exited with ${code}`);
        verify('pack ours', dest);
      },
    },
    {
      name: 'zip',
      ours: async () => writeZip(await stagedEntries(source), ourZip, 1),
      baseline: { command: `zip -qr1 '${toolZip}' .`, cwd: source },
      check: (side) => {
        const zipFile = side === 'ours' ? ourZip : toolZip;
        const result = spawnSync('unzip', ['-q', zipFile, '-d', dest], { encoding: 'utf8' });
        if (result.status !== 0) throw new Error(`zip ${side}: unzip refused it: ${result.stderr}`);
        verify(`zip ${side}`, dest);
      },
    },
    {
      name: 'unzip',
      ours: async () => extractInto(await zipAsTar(toolZip), dest, undefined, { anySymlinkTarget: true }),
      baseline: { command: `unzip -q '${toolZip}' -d '${dest}'`, cwd: work },
      check: (side) => verify(`unzip ${side}`, dest),
    },
  ];

  const figures: Record<string, unknown> = { files: tree.files, directories: tree.directories, bytes: tree.bytes, runs, dir: values.dir };
  const loadBefore = round(loadavg()[0]!, 2);
  const only = new Set(values.only.split(','));
  // `unzip` reads the file the `zip` baseline writes: alone, it makes that file first, untimed.
  if (only.has('unzip') && !only.has('zip')) baseline(`zip -qr1 '${toolZip}' .`, source);
  for (const operation of operations.filter((candidate) => only.has(candidate.name))) {
    // The zip the baseline writes is the input of `unzip`: it must outlive its own operation.
    const resetBaseline = (): void => {
      clean();
      if (operation.name === 'zip') rmSync(toolZip, { force: true });
    };
    clean();
    await ours(operation.ours);
    await operation.check('ours', '');
    resetBaseline();
    const checked = baseline(operation.baseline.command, operation.baseline.cwd);
    await operation.check('baseline', checked.stdout);
    const ourSamples: Sample[] = [];
    const baselineSamples: Sample[] = [];
    for (let run = 0; run < runs; run += 1) {
      clean();
      ourSamples.push(await ours(operation.ours));
      resetBaseline();
      baselineSamples.push(baseline(operation.baseline.command, operation.baseline.cwd));
    }
    clean();
    const ms = median(ourSamples.map((sample) => sample.ms));
    const cpuMs = median(ourSamples.map((sample) => sample.cpuMs));
    const baselineMs = median(baselineSamples.map((sample) => sample.ms));
    const baselineCpuMs = median(baselineSamples.map((sample) => sample.cpuMs));
    Object.assign(figures, {
      [`${operation.name}_ms`]: round(ms),
      [`${operation.name}_ms_spread`]: spread(ourSamples.map((sample) => sample.ms)),
      [`${operation.name}_cpu_ms`]: round(cpuMs),
      [`${operation.name}_cpu_ms_spread`]: spread(ourSamples.map((sample) => sample.cpuMs)),
      [`${operation.name}_baseline_ms`]: round(baselineMs),
      [`${operation.name}_baseline_ms_spread`]: spread(baselineSamples.map((sample) => sample.ms)),
      [`${operation.name}_baseline_cpu_ms`]: round(baselineCpuMs),
      [`${operation.name}_baseline_cpu_ms_spread`]: spread(baselineSamples.map((sample) => sample.cpuMs)),
      [`${operation.name}_ratio`]: round(ms / baselineMs, 2),
      [`${operation.name}_cpu_ratio`]: baselineCpuMs > 0 ? round(cpuMs / baselineCpuMs, 2) : null,
    });
  }
  figures.load_average = [loadBefore, round(loadavg()[0]!, 2)];
  console.log(JSON.stringify(figures));
} finally {
  rmSync(work, { recursive: true, force: true });
}
