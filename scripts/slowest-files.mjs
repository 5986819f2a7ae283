// A node:test reporter that prints, when the run ends, the ten test files that took longest
// (the sum of their top-level tests and suites, hooks included) and the sum over all files
// (next to the run's wall time it shows how much the files overlapped). With
// GANTRY_TEST_TIMES=FILE it also appends every file's time to FILE, one JSON line per file.
// Used beside the spec reporter by scripts/run-tests.sh; a file run in a batch
// (scripts/test-batches.mjs) is the batch's top-level suite named after it.
import { appendFileSync } from 'node:fs';
import path from 'node:path';

export default async function* slowestFiles(source) {
  const started = Date.now();
  const byFile = new Map();
  const batchDir = process.env.GANTRY_TEST_BATCH_DIR;
  const fileOf = ({ file, name }) => (batchDir && file.startsWith(`${batchDir}${path.sep}`) ? path.resolve(name) : file);
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      const file = fileOf(event.data);
      byFile.set(file, (byFile.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
    }
  }
  if (byFile.size === 0) return;
  const cwd = process.cwd();
  // Files run compiled (scripts/build-tests.sh): named by their sources.
  const relative = (file) => (file.startsWith(`${cwd}/`) ? file.slice(cwd.length + 1) : file).replace(/\.js$/, '.ts');
  const sorted = [...byFile].sort((a, b) => b[1] - a[1]);
  const total = sorted.reduce((sum, [, ms]) => sum + ms, 0);
  yield `\nslowest of ${byFile.size} test files (all files ${(total / 1000).toFixed(0)} s, run ${((Date.now() - started) / 1000).toFixed(0)} s):\n`;
  for (const [file, ms] of sorted.slice(0, 10)) yield `${(ms / 1000).toFixed(1).padStart(8)} s  ${relative(file)}\n`;
  const timesFile = process.env.GANTRY_TEST_TIMES;
  if (timesFile) {
    const database = process.env.GANTRY_TEST_DATABASE_URL ? 'postgresql' : 'sqlite';
    appendFileSync(timesFile, sorted.map(([file, ms]) => `${JSON.stringify({ file: relative(file), database, ms: Math.round(ms) })}\n`).join(''));
  }
}
