// Runs compiled test files with node:test, several files to a process: Node 20 has no
// --test-isolation=none, and a process of its own costs each file about 1.5 s of CPU (starting
// Node, importing the coordinator). Each batch imports its files one after the other, each
// inside a suite named by the file (`test/x/y.test.ts`), so a file's top-level hooks stay its
// own and failures read as before; what runs alone is decided in scripts/test-plan.mjs.
// GANTRY_TEST_BATCH=N puts N files in a batch (default 32; 1 runs every file alone): each process
// fewer saved about 2 s of CPU (test/coordinator on SQLite: 205 s in 32 processes of 8 files,
// 164 s in 13 of 32; docs/development.md#tests).
// With GANTRY_TEST_DATABASE_URL set, files that can never open a test database are left out:
// they would run the very code they ran on SQLite.
// `--postgres FILE.js...` after the files runs those files a second time on the PostgreSQL of
// GANTRY_TEST_DATABASE_URL, in the same run: the first files then run on SQLite, and the
// processes of both passes share the machine (npm test's whole run).
// GANTRY_TEST_CONCURRENCY=N runs N processes at a time (default 2; 3 with --postgres, whose
// processes wait on the database and on git often enough to leave two cores idle a third of
// the time; four at a time measured no faster in a full run).
// When the run ends it prints the CPU (user + system) its processes spent, their children's
// included, and the ten files that took most (scripts/test-cpu.mjs); with GANTRY_TEST_TIMES=FILE
// it appends those records to FILE too, beside the files' times.
// Usage: node scripts/test-batches.mjs FILE.js... [--postgres FILE.js...]   (scripts/run-tests.sh)
import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cpuNow, summarizeCpu } from './test-cpu.mjs';
import { opensTestDatabase, planJobs } from './test-plan.mjs';

const args = process.argv.slice(2);
const marker = args.indexOf('--postgres');
let files = marker < 0 ? args : args.slice(0, marker);
const databaseUrl = process.env.GANTRY_TEST_DATABASE_URL;
if (marker >= 0 && !databaseUrl) {
  console.error('--postgres needs GANTRY_TEST_DATABASE_URL (scripts/with-postgres.sh sets it)');
  process.exit(2);
}
/** The files that may open a test database: on PostgreSQL, the others would run the very code they ran on SQLite. */
const onPostgres = (candidates) => {
  const withoutDatabase = candidates.filter((file) => !opensTestDatabase(file));
  if (withoutDatabase.length > 0) {
    console.log(`not run on PostgreSQL, as they open no test database: ${withoutDatabase.map((file) => path.relative(process.cwd(), file).replace(/\.js$/, '.ts')).join(', ')}`);
  }
  return candidates.filter((file) => !withoutDatabase.includes(file));
};
let postgres;
if (marker >= 0) postgres = { files: onPostgres(args.slice(marker + 1)), url: databaseUrl };
else if (databaseUrl) files = onPostgres(files);
if (postgres && postgres.files.length === 0) postgres = undefined;
if (postgres === undefined && files.length === 0) process.exit(0);

const requested = Number(process.env.GANTRY_TEST_BATCH ?? 32);
const batchSize = Number.isInteger(requested) && requested > 0 ? requested : 32;
const batchDir = mkdtempSync(path.join(tmpdir(), 'gantry-test-batches-'));
// A file that hangs (say, on a Docker engine that died) fails after 10 minutes instead of holding
// CI. node:test gives --test-timeout to each process and to each test in it: a batch's process
// gets one file's time per file it runs, each file's suite its own 10 minutes.
const fileTimeoutMs = 600_000;
// Each process appends its CPU and its files' here (scripts/test-cpu.mjs), summed when the run ends.
const cpuFile = path.join(batchDir, 'cpu.jsonl');
const jobs = planJobs(files, { batchSize, batchDir, fileTimeoutMs, postgres });
const requestedConcurrency = Number(process.env.GANTRY_TEST_CONCURRENCY ?? (postgres ? 3 : 2));
const concurrency = Number.isInteger(requestedConcurrency) && requestedConcurrency > 0 ? requestedConcurrency : 2;
// The SQLite pass's processes must not see the database URL: only the PostgreSQL modules set it.
const { GANTRY_TEST_DATABASE_URL: _url, ...sqliteEnv } = process.env;

// The tests' temporary files and directories go under one directory of this run (TMPDIR), removed
// when it ends: many tests leave theirs behind (a job's build directory, an upload's copy), and
// thousands of them left in /tmp make every later file creation there slower.
// Open to every user, as /tmp is (sticky): some tests run a job as a user other than root.
const testTmp = mkdtempSync(path.join(tmpdir(), 'gantry-test-tmp-'));
chmodSync(testTmp, 0o1777);

// What this process's children used before (run-tests.sh's build, whose shell this process replaced) is not the run's.
const before = cpuNow().children;
const run = spawnSync(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${fileTimeoutMs * batchSize}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/slowest-files.mjs',
    '--test-reporter-destination=stdout',
    ...jobs,
  ],
  { stdio: 'inherit', env: { ...(postgres ? sqliteEnv : process.env), TMPDIR: testTmp, GANTRY_TEST_BATCH_DIR: batchDir, GANTRY_TEST_CPU_FILE: cpuFile } },
);
// The whole run's CPU: node:test's own process and its reporters too, and every process they waited for.
const runMs = cpuNow().children - before;
process.stdout.write(summarizeCpu(cpuFile));
console.log(`CPU of the whole test run (node:test's process included): ${(runMs / 1000).toFixed(1)} s`);
if (process.env.GANTRY_TEST_TIMES && existsSync(cpuFile)) appendFileSync(process.env.GANTRY_TEST_TIMES, readFileSync(cpuFile));
rmSync(batchDir, { recursive: true, force: true });
rmSync(testTmp, { recursive: true, force: true });
process.exit(run.status ?? 1);
