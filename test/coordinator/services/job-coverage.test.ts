import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { JobCoverage, type CoverageLimits } from '../../../src/coordinator/services/ci/runners/job-coverage.ts';
import { silentLogger } from '../../../src/shared/logger.ts';
import { RegexBudget } from '../../../src/shared/regex-budget.ts';
import { FileTraceStore } from '../../../src/storage/fs/traces.ts';

/** The backward scan of a stored log (files), its chunks and its budget, with the real regex thread. */
describe('JobCoverage', () => {
  let dataDir: string;
  let traces: FileTraceStore;
  const regexes = new RegexBudget({ maxProgramSize: 5_000 });
  let nextJob = 1;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'gantry-coverage-scan-'));
    traces = new FileTraceStore(dataDir);
  });
  after(async () => {
    await regexes.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function coverageOf(log: string, pattern: string, limits: CoverageLimits = {}, clock?: () => number): Promise<number | null> {
    const jobId = nextJob++;
    if (log !== '') await traces.append(jobId, 0, Buffer.from(log));
    return new JobCoverage({ traces, regexes, logger: silentLogger(), limits, clock }).extract(jobId, pattern);
  }

  const PATTERN = String.raw`Coverage: \d+\.\d+%`;

  it('takes the last line with a number, across chunks smaller than a line', async () => {
    const log = `Coverage: 11.00%\r\n${'x'.repeat(50)}\nCoverage: 12.50%\r\nCoverage: none\nthe end\n`;
    for (const chunkBytes of [7, 16, 1024]) assert.equal(await coverageOf(log, PATTERN, { chunkBytes }), 12.5, `chunks of ${String(chunkBytes)}`);
    assert.equal(await coverageOf(log, String.raw`Coverage: \S+`, { chunkBytes: 7 }), 12.5, 'a match without a number is passed over');
  });

  it('finds nothing in an empty log, a log without a match, or with an over-budget pattern', async () => {
    assert.equal(await coverageOf('', PATTERN), null);
    assert.equal(await coverageOf('all good\n', PATTERN), null);
    assert.equal(await coverageOf('Coverage: 1.00%\n', `Coverage: (a{1,1000}){1,5}|${PATTERN}`), null);
  });

  it('strips the timestamp prefix of a timestamped log, so that ^ anchors the text', async () => {
    const log = '2026-11-22T08:00:00.123456Z 00O Running\n2026-11-22T08:00:01.000000Z 01O Coverage: 33.30%\n';
    assert.equal(await coverageOf(log, `^${PATTERN}`), 33.3);
    assert.equal(await coverageOf('x 01O Coverage: 33.30%\n', `^${PATTERN}`), null);
  });

  it('matches ANSI sequences as they are (as GitLab does)', async () => {
    const log = 'Coverage: \u001b[32m55.00%\u001b[0m\nCoverage: 44.00%\n';
    assert.equal(await coverageOf(log.split('\n').reverse().join('\n'), PATTERN), 44);
    assert.equal(await coverageOf('Coverage: \u001b[32m55.00%\u001b[0m\n', String.raw`Coverage: \S+`), 32, 'the first number of the match is the colour code');
  });

  it('reads no more than its bytes from the end', async () => {
    const log = `Coverage: 10.00%\n${'y'.repeat(100)}\n`;
    assert.equal(await coverageOf(log, PATTERN, { maxBytes: 200 }), 10);
    assert.equal(await coverageOf(log, PATTERN, { maxBytes: 110, chunkBytes: 16 }), null);
  });

  it('stops when its time is up (a clock that jumps a second a chunk)', async () => {
    let now = 0;
    const clock = () => (now += 1_000);
    const log = `Coverage: 10.00%\n${'z\n'.repeat(200)}`;
    assert.equal(await coverageOf(log, PATTERN, { chunkBytes: 64, timeLimitMs: 2_500 }, clock), null);
    now = 0;
    assert.equal(await coverageOf(log, PATTERN, { chunkBytes: 64, timeLimitMs: 60_000 }, clock), 10);
  });
});
