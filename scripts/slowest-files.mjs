// A node:test reporter that prints, when the run ends, the ten test files that took longest
// (the sum of their top-level tests and suites, hooks included). Used beside the spec reporter
// by scripts/run-tests.sh.
export default async function* slowestFiles(source) {
  const byFile = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      byFile.set(event.data.file, (byFile.get(event.data.file) ?? 0) + (event.data.details?.duration_ms ?? 0));
    }
  }
  if (byFile.size === 0) return;
  const cwd = process.cwd();
  const slowest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
  yield `\nslowest of ${byFile.size} test files:\n`;
  for (const [file, ms] of slowest) {
    const name = file.startsWith(`${cwd}/`) ? file.slice(cwd.length + 1) : file;
    yield `${(ms / 1000).toFixed(1).padStart(8)} s  ${name}\n`;
  }
}
