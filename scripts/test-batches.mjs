// Runs compiled test files with node:test, several files to a process: Node 20 has no
// --test-isolation=none, and a process of its own costs each file about 1.5 s of CPU (starting
// Node, importing the coordinator). Each batch imports its files one after the other, each
// inside a suite named by the file (`test/x/y.test.ts`), so a file's top-level hooks stay its
// own and failures read as before; what runs alone is decided in scripts/test-plan.mjs.
// GANTRY_TEST_BATCH=N puts N files in a batch (default 8; 1 runs every file alone).
// With GANTRY_TEST_DATABASE_URL set, files that can never open a test database are left out:
// they would run the very code they ran on SQLite.
// Usage: node scripts/test-batches.mjs FILE.js...   (scripts/run-tests.sh)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { opensTestDatabase, planJobs } from './test-plan.mjs';

let files = process.argv.slice(2);
if (process.env.GANTRY_TEST_DATABASE_URL) {
  const withoutDatabase = files.filter((file) => !opensTestDatabase(file));
  if (withoutDatabase.length > 0) {
    console.log(`not run on PostgreSQL, as they open no test database: ${withoutDatabase.map((file) => path.relative(process.cwd(), file).replace(/\.js$/, '.ts')).join(', ')}`);
    files = files.filter((file) => !withoutDatabase.includes(file));
  }
}
if (files.length === 0) process.exit(0);

const requested = Number(process.env.GANTRY_TEST_BATCH ?? 8);
const batchSize = Number.isInteger(requested) && requested > 0 ? requested : 8;
const batchDir = mkdtempSync(path.join(tmpdir(), 'gantry-test-batches-'));
// A file that hangs (say, on a Docker engine that died) fails after 10 minutes instead of holding
// CI. node:test gives --test-timeout to each process and to each test in it: a batch's process
// gets one file's time per file it runs, each file's suite its own 10 minutes.
const fileTimeoutMs = 600_000;
const jobs = planJobs(files, { batchSize, batchDir, fileTimeoutMs });

const run = spawnSync(
  process.execPath,
  [
    '--test',
    '--test-concurrency=2',
    `--test-timeout=${fileTimeoutMs * batchSize}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/slowest-files.mjs',
    '--test-reporter-destination=stdout',
    ...jobs,
  ],
  { stdio: 'inherit', env: { ...process.env, GANTRY_TEST_BATCH_DIR: batchDir } },
);
rmSync(batchDir, { recursive: true, force: true });
process.exit(run.status ?? 1);
