/** What `runner exec` prints: collapsed sections, --verbose, the progress line, the job logs kept in .gantry/logs/. */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { formatSummary, LogPrinter, type JobResult } from '../../src/exec/output.ts';
import { ProgressLine, progressText } from '../../src/exec/progress.ts';
import { exec, workingTree } from './exec-helpers.ts';

const PIPELINE = `
job:
  script:
    - echo "from the script"
  after_script:
    - echo "from after_script"
`;

describe('runner exec output', () => {
  const dir = workingTree({ '.gitlab-ci.yml': PIPELINE });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('collapses the runner sections to their header, keeps the whole trace in .gantry/logs/, and shows it all with --verbose', async () => {
    const quiet = await exec(dir, {});
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.match(quiet.stdout, /^job +\| Getting source from Git repository$/m);
    assert.doesNotMatch(quiet.stdout, /Created fresh repository/);
    assert.match(quiet.stdout, /^job +\| from the script$/m);
    assert.match(quiet.stdout, /^job +\| from after_script$/m);
    const logFile = path.join(dir, '.gantry/logs/job.log');
    assert.match(quiet.stdout, new RegExp(`^log of job: ${logFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    const log = readFileSync(logFile, 'utf8');
    assert.match(log, /Created fresh repository/);
    assert.match(log, /section_start:\d+:get_sources/);

    const verbose = await exec(dir, { verbose: true });
    assert.equal(verbose.code, 0, verbose.stderr);
    assert.match(verbose.stdout, /^job +\| Created fresh repository\.$/m);
    assert.doesNotMatch(quiet.stdout + verbose.stdout, /\x1b\[2K/, 'no progress line off a terminal');
  });

  it('keeps a progress line under the logs on a terminal, and clears it before the summary', async () => {
    const result = await exec(dir, {}, { tty: true });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /\r\x1b\[2K\[jobs: \d running, \d pending, \d done\]/);
    const summary = result.stdout.lastIndexOf('JOB');
    assert.ok(summary > result.stdout.lastIndexOf('\x1b[2K'), 'the summary comes after the last progress line');
    assert.doesNotMatch(result.stdout.slice(summary), /\[jobs:/);

    const json = await exec(dir, { json: true }, { tty: true });
    assert.doesNotMatch(json.stdout + json.stderr, /\[jobs:/);
  });
});

describe('the log printer and the progress line', () => {
  it('prints a collapsed section as its header and the script sections whole', () => {
    let out = '';
    const printer = new LogPrinter((text) => void (out += text), false, ['job']);
    const trace = [
      'section_start:1:get_sources\r\x1b[0K\x1b[36;1mGetting source\x1b[0;m',
      'Fetching changes...',
      'section_end:2:get_sources\r\x1b[0Ksection_start:2:step_script\r\x1b[0KExecuting "step_script"',
      '$ make',
      'section_start:3:mine[collapsed=true]\r\x1b[0KMy section',
      'hidden inside mine',
      'section_end:4:mine\r\x1b[0Kafter mine',
      'section_end:5:step_script\r\x1b[0Ksection_start:5:upload_artifacts_on_success\r\x1b[0KUploading',
      'Uploading artifacts...',
      'section_end:6:upload_artifacts_on_success\r\x1b[0KJob succeeded',
      '',
    ].join('\n');
    printer.add(7, 'job', Buffer.from(trace), true);
    assert.deepEqual(out.split('\n'), [
      'job      | Getting source',
      'job      | Executing "step_script"',
      'job      | $ make',
      'job      | My section',
      'job      | after mine',
      'job      | Uploading',
      'job      | Job succeeded',
      '',
    ]);
    let verbose = '';
    new LogPrinter((text) => void (verbose += text), false, ['job'], true).add(7, 'job', Buffer.from(trace), true);
    assert.match(verbose, /^job +\| Fetching changes\.\.\.$/m);
    assert.match(verbose, /^job +\| hidden inside mine$/m);
  });

  it("starts a new line at a section marker after the job's text, as GitLab's log shows a last line without its newline; no line for the trace's final reset", () => {
    let out = '';
    const trace = [
      'section_start:1:step_script\r\x1b[0KExecuting "step_script"',
      '$ printf no-newline',
      'no-newline\x1b[0Ksection_end:2:step_script\r\x1b[0K\x1b[0Ksection_start:2:cleanup_file_variables\r\x1b[0K\x1b[0K\x1b[36;1mCleaning up project directory and file based variables\x1b[0;m',
      // As the runner ends a trace: its last line's colour reset after the newline.
      'section_end:3:cleanup_file_variables\r\x1b[0K\x1b[32;1mJob succeeded',
      '\x1b[0;m',
    ].join('\n');
    new LogPrinter((text) => void (out += text), false, ['job']).add(7, 'job', Buffer.from(trace), true);
    assert.deepEqual(out.split('\n'), [
      'job      | Executing "step_script"',
      'job      | $ printf no-newline',
      'job      | no-newline',
      'job      | Cleaning up project directory and file based variables',
      'job      | Job succeeded',
      '',
    ]);
  });

  it("prints the script's own sections whole unless they ask to be collapsed", () => {
    let out = '';
    const trace = [
      'section_start:1:step_script\r\x1b[0KExecuting "step_script"',
      '$ echo -e "..."',
      '\x1b[0Ksection_start:1000000:my_section\r\x1b[0KMy Section Title',
      '$ echo "inside section"',
      'inside section',
      '\x1b[0Ksection_end:1000012:my_section\r\x1b[0K',
      'section_end:2:step_script\r\x1b[0K',
      '',
    ].join('\n');
    new LogPrinter((text) => void (out += text), false, ['job']).add(7, 'job', Buffer.from(trace), true);
    assert.match(out, /^job +\| My Section Title$/m);
    assert.match(out, /^job +\| \$ echo "inside section"$/m);
    assert.match(out, /^job +\| inside section$/m);
  });

  it('counts jobs and redraws itself under written lines', () => {
    assert.equal(progressText(['running', 'pending', 'created', 'success', 'failed', 'manual']), '[jobs: 1 running, 2 pending, 2 done (1 failed), 1 manual]');
    let out = '';
    const line = new ProgressLine((text) => void (out += text));
    line.write('before\n');
    line.show(['running']);
    line.show(['running']);
    line.write('a log line\n');
    line.clear();
    assert.equal(out, 'before\n\r\x1b[2K[jobs: 1 running, 0 pending, 0 done]\r\x1b[2Ka log line\n[jobs: 1 running, 0 pending, 0 done]\r\x1b[2K');
  });
});

describe('the summary', () => {
  const job = (name: string, pipelineId: number, upstream: string[]): JobResult => ({
    id: pipelineId * 10, name, stage: 'test', status: 'success', allowFailure: false, duration: 0.1, startedAt: null, finishedAt: null, failureReason: null, pipelineId, upstream, log: `/logs/${name}.${pipelineId}.log`,
  });

  it("names a child pipeline's jobs by the trigger jobs above them, so that same-named jobs can be told apart", () => {
    const text = formatSummary({
      status: 'success', exitCode: 0, pipelineId: 1, pipelineName: null, startupMs: 1,
      jobs: [job('rspec', 1, []), job('spawn', 1, []), job('rspec', 2, ['spawn']), job('rspec', 3, ['spawn', 'nested'])],
    });
    const rows = text.split('\n').filter((line) => line.includes('rspec') && !line.startsWith('log of'));
    assert.deepEqual(rows.map((row) => row.split(/ {2,}/)[0]), ['rspec', 'spawn › rspec', 'spawn › nested › rspec']);
    assert.match(text, /^log of spawn › rspec: \/logs\/rspec\.2\.log$/m);
  });
});
