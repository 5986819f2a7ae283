import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

const root = path.resolve(import.meta.dirname, '../..');

/** A test file as scripts/test-batches.mjs expects it: a compiled .js beside its .ts source. */
function writeTestFile(dir: string, name: string, body: string): string {
  const text = `import { after, test } from 'node:test';\nimport { appendFileSync } from 'node:fs';\n${body}\n`;
  writeFileSync(path.join(dir, `${name}.test.ts`), text);
  writeFileSync(path.join(dir, `${name}.test.js`), text);
  return path.join(dir, `${name}.test.js`);
}

describe('scripts/test-batches.mjs', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gantry-batches-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const pids = path.join(dir, 'pids');
  const record = (name: string) => `test('${name} records its process', () => { appendFileSync(${JSON.stringify(pids)}, '${name} ' + process.pid + '\\n'); });`;
  const files = [
    writeTestFile(dir, 'first', `${record('first')}\nlet closed = false;\nafter(() => { closed = true; });\ntest('first fails', () => { throw new Error('first broke'); });`),
    writeTestFile(dir, 'second', record('second')),
    writeTestFile(dir, 'alone', `${record('alone')}\nprocess.env.GANTRY_BATCH_PROBE = '1';`),
  ];
  // Without NODE_TEST_CONTEXT, which would make the inner runner report to this one.
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const run = spawnSync(process.execPath, ['scripts/test-batches.mjs', ...files], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...env, GANTRY_TEST_BATCH: '8', GANTRY_TEST_DATABASE_URL: '' },
  });
  const output = `${run.stdout}${run.stderr}`;
  const processOf = new Map(
    readFileSync(pids, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );

  it('runs batchable files in one process and a file that sets the environment in its own', () => {
    assert.equal(processOf.get('first'), processOf.get('second'), output);
    assert.notEqual(processOf.get('alone'), processOf.get('first'), output);
  });

  it('fails the run when one file fails, naming the file and the failing test', () => {
    assert.equal(run.status, 1, output);
    const relative = path.relative(root, path.join(dir, 'first.test.ts'));
    assert.match(output, new RegExp(`✖ ${relative.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(output, /first broke/);
  });

  it('reports each file of a batch on its own among the slowest files', () => {
    const report = output.slice(output.indexOf('slowest of'));
    assert.match(report, /^slowest of 3 test files/);
    for (const name of ['first', 'second', 'alone']) assert.match(report, new RegExp(`${name}\\.test\\.ts`));
  });
});

describe('scripts/test-batches.mjs --postgres', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gantry-batches-pg-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const seen = path.join(dir, 'seen');
  const databaseHelper = path.relative(dir, path.join(root, 'test/helpers/database.ts'));
  const probe = (name: string) =>
    `test('${name} records the database it was given', () => { appendFileSync(${JSON.stringify(seen)}, '${name} ' + (process.env.GANTRY_TEST_DATABASE_URL || 'sqlite') + '\\n'); });`;
  // Named, not imported: enough for the plan to count the file as one that opens a test database.
  const withDatabase = writeTestFile(dir, 'stored', `const helper = '${databaseHelper}';\nvoid helper;\n${probe('stored')}`);
  const withoutDatabase = writeTestFile(dir, 'pure', probe('pure'));
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const url = 'postgres://probe.invalid/postgres';
  const run = spawnSync(process.execPath, ['scripts/test-batches.mjs', withDatabase, withoutDatabase, '--postgres', withDatabase, withoutDatabase], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...env, GANTRY_TEST_DATABASE_URL: url },
  });
  const output = `${run.stdout}${run.stderr}`;
  const lines = () => readFileSync(seen, 'utf8').trim().split('\n').sort();

  it('runs every file on SQLite, without the database URL, and those that open a test database on PostgreSQL too', () => {
    assert.equal(run.status, 0, output);
    assert.deepEqual(lines(), ['pure sqlite', `stored ${url}`, 'stored sqlite'], output);
  });

  it('names the PostgreSQL runs apart, and the files it leaves out of that pass', () => {
    assert.match(output, /stored\.test\.ts \[PostgreSQL\]/);
    assert.match(output, /not run on PostgreSQL, as they open no test database: [^\n]*pure\.test\.ts/);
    assert.match(output.slice(output.indexOf('slowest of')), /^slowest of 3 test files/);
  });

  it('refuses --postgres without a database URL', () => {
    const refused = spawnSync(process.execPath, ['scripts/test-batches.mjs', withDatabase, '--postgres', withDatabase], { cwd: root, encoding: 'utf8', timeout: 60_000, env: { ...env, GANTRY_TEST_DATABASE_URL: '' } });
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /--postgres needs GANTRY_TEST_DATABASE_URL/);
  });
});

describe('scripts/test-batches.mjs CPU records', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gantry-batches-cpu-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // Busy until the process (or the child) has used 30 clock ticks (300 ms) of CPU more, as Linux
  // counts them: a quantity of work, not a speed. Read from /proc, as a file measuring its
  // process through Node's API would run alone.
  const ticks = `(() => { const fields = require('node:fs').readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' '); return Number(fields[11]) + Number(fields[12]); })()`;
  const burn = `const require = (await import('node:module')).createRequire(import.meta.url); const from = ${ticks}; while (${ticks} - from < 30) {}`;
  const files = [
    writeTestFile(dir, 'busy', `test('busy burns CPU itself', async () => { ${burn} });`),
    writeTestFile(dir, 'parent', `import { spawnSync } from 'node:child_process';\ntest('parent lets a child burn CPU', () => { spawnSync(process.execPath, ['--input-type=module', '-e', ${JSON.stringify(burn)}]); });`),
    writeTestFile(dir, 'idle', `test('idle does nothing', () => {});`),
  ];
  const times = path.join(dir, 'times.jsonl');
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const run = spawnSync(process.execPath, ['scripts/test-batches.mjs', ...files], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...env, GANTRY_TEST_BATCH: '8', GANTRY_TEST_DATABASE_URL: '', GANTRY_TEST_TIMES: times },
  });
  const output = `${run.stdout}${run.stderr}`;
  type CpuLine = { file?: string; process?: string[]; database: string; cpu_ms: number; children_ms: number; start_ms?: number };
  const lines = (): CpuLine[] =>
    readFileSync(times, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as CpuLine)
      .filter((line) => line.cpu_ms !== undefined);
  const ofFile = (name: string) => lines().find((line) => line.file?.endsWith(`${name}.test.ts`));

  it('records each file of a batch with the CPU it and the children it waited for used', () => {
    assert.equal(run.status, 0, output);
    const busy = ofFile('busy');
    const parent = ofFile('parent');
    const idle = ofFile('idle');
    assert.ok(busy && parent && idle, output);
    assert.ok(busy.cpu_ms >= 250, JSON.stringify(busy));
    assert.ok(parent.children_ms >= 300, JSON.stringify(parent));
    assert.ok(idle.cpu_ms < busy.cpu_ms && idle.children_ms < parent.children_ms, JSON.stringify(idle));
    assert.equal(busy.database, 'sqlite');
  });

  it('records the process of the batch, its files included, and prints the sum', () => {
    const processes = lines().filter((line) => line.process !== undefined);
    assert.equal(processes.length, 1, output);
    const [batch] = processes;
    assert.equal(batch?.process?.length, 3);
    assert.ok(batch && batch.cpu_ms >= 550 && batch.start_ms !== undefined && batch.start_ms < batch.cpu_ms, JSON.stringify(batch));
    assert.match(output, /CPU of the 1 test processes \(user \+ system, their children included\): \d+\.\d s/);
    assert.match(output, /CPU of the whole test run \(node:test's process included\): \d+\.\d s/);
  });
});
