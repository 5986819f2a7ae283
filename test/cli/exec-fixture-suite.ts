/**
 * The fixture repositories of test/fixtures/exec/: each directory is a small project (its CI
 * file and the files it needs) with `expected.json`: the exec flags (`args`), the exit status,
 * the pipeline status, each job's status, failure reasons, the jobs allowed to fail
 * (`allowFailure`, when given: exactly these), the jobs `--reuse` reused, lines of
 * the log (regular expressions, `^`/`$` per line), stderr, the trigger jobs above a child
 * pipeline's job (`upstream`), and job pairs where the first must
 * start before the second finishes. Each runs as a fresh git repository with everything
 * committed but `.gantry/`, which is copied in afterwards, as a user's local variables file is,
 * and the `uncommitted` files, written after the commit (changed or untracked). `then` is a
 * second run in the same tree, after writing its `write` files, with its own expectations.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ExecArgs } from '../../src/cli/commands/exec.ts';
import { exec, git, statuses, workingTree, writeFiles, type JsonResult } from './exec-helpers.ts';

interface Expected {
  args?: ExecArgs;
  exitCode: number;
  status?: string;
  jobs?: Record<string, string>;
  failureReasons?: Record<string, string>;
  /** The trigger jobs above a job of a child pipeline (outermost first), by job name. */
  upstream?: Record<string, string[]>;
  /** A failed bridge's `downstreamErrors`, by bridge name: patterns. */
  downstreamErrors?: Record<string, string>;
  /** The jobs whose allow_failure is true at the end (the others' is false). */
  allowFailure?: string[];
  /** The jobs reused (the others ran), with --reuse. */
  reused?: string[];
  log?: string[];
  stderr?: string;
  startedBeforeFinished?: [string, string];
}

interface Fixture extends Expected {
  uncommitted?: Record<string, string>;
  then?: Expected & { write?: Record<string, string> };
}

interface FullResult extends JsonResult {
  jobs: Array<JsonResult['jobs'][number] & { startedAt: string | null; finishedAt: string | null; reused?: boolean; allowFailure: boolean; downstreamErrors?: string; upstream?: string[] }>;
}

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/exec');

async function runAndCheck(dir: string, expected: Expected): Promise<void> {
  const result = await exec(dir, { ...expected.args, json: true });
  const context = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  assert.equal(result.code, expected.exitCode, context);
  for (const pattern of expected.log ?? []) assert.match(result.stderr, new RegExp(pattern, 'm'), context);
  if (expected.stderr !== undefined) assert.match(result.stderr, new RegExp(expected.stderr), context);
  if (expected.jobs === undefined) return;
  const outcome = JSON.parse(result.stdout) as FullResult;
  assert.deepEqual(statuses(outcome), expected.jobs, context);
  if (expected.status !== undefined) assert.equal(outcome.status, expected.status);
  for (const [job, reason] of Object.entries(expected.failureReasons ?? {})) {
    assert.equal(outcome.jobs.find((each) => each.name === job)?.failureReason, reason, context);
  }
  for (const [job, upstream] of Object.entries(expected.upstream ?? {})) {
    assert.deepEqual(outcome.jobs.find((each) => each.name === job)?.upstream, upstream, context);
  }
  for (const [bridge, pattern] of Object.entries(expected.downstreamErrors ?? {})) {
    assert.match(outcome.jobs.find((each) => each.name === bridge)?.downstreamErrors ?? '', new RegExp(pattern), context);
  }
  if (expected.allowFailure !== undefined) assert.deepEqual(outcome.jobs.filter((job) => job.allowFailure).map((job) => job.name).sort(), [...expected.allowFailure].sort(), context);
  if (expected.reused !== undefined) assert.deepEqual(outcome.jobs.filter((job) => job.reused).map((job) => job.name).sort(), [...expected.reused].sort(), context);
  if (expected.startedBeforeFinished) {
    const [early, late] = expected.startedBeforeFinished.map((job) => outcome.jobs.find((each) => each.name === job));
    assert.ok(early?.startedAt && late?.finishedAt && early.startedAt < late.finishedAt, `${early?.name} started before ${late?.name} finished\n${context}`);
  }
}

/**
 * The fixtures in shard `shard` of `shards` (every `shards`-th by name): each shard is a test
 * file of its own, so each has its own time budget (test-batches.mjs gives a file 10 minutes)
 * and two can run at once on a slow machine.
 */
export function describeFixtureShard(shard: number, shards: number): void {
  const names = readdirSync(FIXTURES).sort().filter((_name, index) => index % shards === shard);
  describe(`runner exec on the fixture repositories (shard ${shard + 1} of ${shards})`, { concurrency: 2 }, () => {
    for (const name of names) fixtureTest(name);
  });
}

function fixtureTest(name: string): void {
  it(name, async () => {
    const fixture = JSON.parse(readFileSync(path.join(FIXTURES, name, 'expected.json'), 'utf8')) as Fixture;
    const dir = workingTree({});
    try {
      const source = path.join(FIXTURES, name);
      // `.gantry/` (local variables) is the user's, never committed: it arrives after the commit.
      cpSync(source, dir, { recursive: true, filter: (file) => !['expected.json', '.gantry'].includes(path.basename(file)) });
      git(dir, 'add', '-A');
      git(dir, 'commit', '-qm', `fixture ${name}`);
      if (existsSync(path.join(source, '.gantry'))) cpSync(path.join(source, '.gantry'), path.join(dir, '.gantry'), { recursive: true });
      writeFiles(dir, fixture.uncommitted ?? {});
      await runAndCheck(dir, fixture);
      if (fixture.then) {
        writeFiles(dir, fixture.then.write ?? {});
        await runAndCheck(dir, fixture.then);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
