// How scripts/test-batches.mjs groups test files into processes, and which files a
// PostgreSQL pass runs. Works on the .ts sources of the compiled files it is given.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Sources matching this run in a process of their own: they change what the whole process
 * shares (environment variables, the working directory, process listeners, module mocks, a
 * fixed port) or measure the process (memory, CPU, timing, the modules it has loaded), which
 * other files would disturb.
 */
const SHARES_OR_MEASURES_THE_PROCESS = new RegExp(
  [
    String.raw`process\.env(\.\w+|\[[^\]]+\])\s*=[^=]`,
    String.raw`delete process\.env`,
    String.raw`Object\.assign\(process\.env`,
    String.raw`process\.(chdir|umask|exit|setMaxListeners|on|once|off|removeListener|removeAllListeners)\(`,
    String.raw`globalThis\.\w+\s*=[^=]`,
    String.raw`mock\.(module|method|timers)`,
    String.raw`setGlobalDispatcher`,
    String.raw`\.listen\(\s*\d{2,}`,
    String.raw`memoryUsage|cpuUsage|resourceUsage|eventLoopUtilization|monitorEventLoopDelay|performance\.now`,
    String.raw`(createRequire\([^)]*\)|require)\.cache\b`,
  ].join('|'),
);

/** What each process's module measures its CPU and its files' with (scripts/test-cpu.mjs). */
const CPU_MODULE = pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'test-cpu.mjs')).href;

/** The only module that reads GANTRY_TEST_DATABASE_URL: every test database comes from it. */
const DATABASE_HELPER = path.resolve('test/helpers/database.ts');

const sourceOf = (file) => path.resolve(file.replace(/\.js$/, '.ts'));
const readSource = (file) => readFileSync(sourceOf(file), 'utf8');

export const runsAlone = (file) => SHARES_OR_MEASURES_THE_PROCESS.test(readSource(file));

/**
 * Whether a test file can reach the database helper: through its imports, or through a module
 * it names by path (a child process it starts). A file that cannot runs the same code whatever
 * GANTRY_TEST_DATABASE_URL says.
 */
export function opensTestDatabase(file) {
  const seen = new Set();
  const pending = [sourceOf(file)];
  while (pending.length > 0) {
    const current = pending.pop();
    if (current === DATABASE_HELPER) return true;
    if (seen.has(current) || !existsSync(current)) continue;
    seen.add(current);
    for (const match of readFileSync(current, 'utf8').matchAll(/['"](\.{1,2}\/[^'"\n]+\.[jt]s)['"]/g)) {
      pending.push(path.resolve(path.dirname(current), match[1].replace(/\.js$/, '.ts')));
    }
  }
  return false;
}

/** Files that run alone and first (scripts/alone-tests.txt: the slow ones, and a few whose outcome depends on the process's speed). */
function listedAlone() {
  const list = path.resolve('scripts/alone-tests.txt');
  if (!existsSync(list)) return [];
  return readFileSync(list, 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '')
    .map((line) => path.resolve(line));
}

/**
 * The processes node:test runs, in this order: the listed files alone, then the other files
 * that must be alone, then batches of `batchSize` files. Each is a module written into
 * `batchDir` that imports its files one after the other, each inside a suite named by the file,
 * which fails after `fileTimeoutMs`; the modules are numbered because node:test starts its
 * files in the order of their paths. `postgres` adds a second pass over its files in the same
 * run: its modules point GANTRY_TEST_DATABASE_URL at `postgres.url` before importing, and
 * their suites are named `test/x.test.ts [PostgreSQL]`. Each module records its process's CPU
 * and each file's (scripts/test-cpu.mjs). The alone files of both passes start
 * first, in the listed order (on PostgreSQL first, where they take longer), then the batches
 * of the two passes alternate.
 */
export function planJobs(files, { batchSize, batchDir, fileTimeoutMs, postgres }) {
  const slow = listedAlone();
  const rank = (file) => {
    const index = slow.indexOf(sourceOf(file));
    return index < 0 ? slow.length : index;
  };
  const isAlone = (file) => batchSize <= 1 || rank(file) < slow.length || runsAlone(file);
  const groupsOf = (passFiles, databaseUrl) => {
    const ordered = [...passFiles].sort((a, b) => rank(a) - rank(b));
    const alone = ordered.filter(isAlone).map((file) => ({ members: [file], databaseUrl }));
    const batchable = ordered.filter((file) => !isAlone(file));
    const batches = [];
    for (let start = 0; start < batchable.length; start += batchSize) batches.push({ members: batchable.slice(start, start + batchSize), databaseUrl });
    return { alone, batches };
  };
  const sqlite = groupsOf(files, undefined);
  const other = postgres ? groupsOf(postgres.files, postgres.url) : { alone: [], batches: [] };
  const alone = [...other.alone, ...sqlite.alone].sort((a, b) => rank(a.members[0]) - rank(b.members[0]));
  const batches = [];
  for (let index = 0; index < Math.max(sqlite.batches.length, other.batches.length); index += 1) {
    batches.push(...[other.batches[index], sqlite.batches[index]].filter((batch) => batch !== undefined));
  }
  return [...alone, ...batches].map(({ members, databaseUrl }, index) => {
    const suffix = databaseUrl === undefined ? '' : ' [PostgreSQL]';
    const names = members.map((file) => path.relative(process.cwd(), sourceOf(file)));
    const entry = path.join(batchDir, `${String(index + 1).padStart(3, '0')}-${path.basename(names[0], '.test.ts')}${databaseUrl === undefined ? '' : '-pg'}.mjs`);
    const setDatabase = databaseUrl === undefined ? [] : [`process.env.GANTRY_TEST_DATABASE_URL = ${JSON.stringify(databaseUrl)};`];
    const database = JSON.stringify(databaseUrl === undefined ? 'sqlite' : 'postgresql');
    const lines = members.map(
      (file, at) =>
        `await measureFile(${JSON.stringify(names[at])}, ${database}, () => describe(${JSON.stringify(names[at] + suffix)}, { timeout: ${fileTimeoutMs} }, async () => { await import(${JSON.stringify(pathToFileURL(path.resolve(file)).href)}); }));`,
    );
    const measure = [`import { measureFile, measureProcess } from ${JSON.stringify(CPU_MODULE)};`, `measureProcess(${JSON.stringify(names)}, ${database});`];
    // Work a timed-out file left running would keep the process alive: it ends 2 minutes after its last file.
    const guard = `setTimeout(() => { console.error('still running 2 minutes after its last file ended: ending the process'); process.exit(1); }, 120_000).unref();`;
    writeFileSync(entry, [`// ${names.join(' ')}${suffix}`, "import { describe } from 'node:test';", ...measure, ...setDatabase, ...lines, guard, ''].join('\n'));
    return entry;
  });
}
