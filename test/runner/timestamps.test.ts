/**
 * Timestamped job logs (FF_TIMESTAMPS): the writer matches gitlab-runner's timestamper line
 * for line (its own test's writes and expected output, with a clock that ticks an hour per
 * line), and the shared helpers turn such a log back into time and text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineTimestamper, microsecondTime } from '../../src/runner/job/timestamps.ts';
import { renderedLines, splitTimestampedLine, withoutTimestamps } from '../../src/shared/log-lines.ts';

function hourlyClock(): () => string {
  let hour = 0;
  return () => {
    hour += 1;
    const at = new Date(Date.UTC(2021, 0, 1) + hour * 3_600_000).toISOString();
    return `${at.slice(0, 19)}.000000Z`;
  };
}

const WRITES = [
  'PREFIX This is the beginning of a new line\n',
  'PREFIX This is a split ',
  'up ',
  'line\n',
  'PREFIX Progress bar: ',
  ...Array.from({ length: 10 }, () => '.\r'),
  'Done.\r\n',
  'PREFIX Another windows new-line\r\n',
  'PREFIX multiple\nnew\nlines\nin\none\n',
  '\nstart',
  '\nend\n',
  'PREFIX Eat carriages\r\r\r\r\r\r\r\n',
  'PREFIX This is across\ntwo lines\n',
  'PREFIX The end',
];

describe('LineTimestamper', () => {
  it("writes gitlab-runner's format: time, stream id, O/E, continuation flag", () => {
    const writer = new LineTimestamper(255, 'E', hourlyClock());
    const out = Buffer.concat([...WRITES.map((write) => writer.write(Buffer.from(write))), writer.close()]).toString();
    const times = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => {
      const at = new Date(Date.UTC(2021, 0, 1) + (from + index) * 3_600_000).toISOString();
      return `${at.slice(0, 19)}.000000Z`;
    });
    const t = times(1, 26);
    const expected = [
      `${t[0]} ffE PREFIX This is the beginning of a new line\n`,
      `${t[1]} ffE PREFIX This is a split up line\n`,
      `${t[2]} ffE PREFIX Progress bar: .\r\n`,
      ...t.slice(3, 12).map((time) => `${time} ffE+.\r\n`),
      `${t[12]} ffE+Done.\r\n`,
      `${t[13]} ffE PREFIX Another windows new-line\r\n`,
      `${t[14]} ffE PREFIX multiple\n`,
      `${t[15]} ffE new\n`,
      `${t[16]} ffE lines\n`,
      `${t[17]} ffE in\n`,
      `${t[18]} ffE one\n`,
      `${t[19]} ffE \n`,
      `${t[20]} ffE start\n`,
      `${t[21]} ffE end\n`,
      `${t[22]} ffE PREFIX Eat carriages\r\r\r\r\r\r\r\n`,
      `${t[23]} ffE PREFIX This is across\n`,
      `${t[24]} ffE two lines\n`,
      `${t[25]} ffE PREFIX The end\n`,
    ];
    assert.equal(out, expected.join(''));
  });

  it('writes a partial line of more than 8 KiB as it comes and continues it', () => {
    const writer = new LineTimestamper(1, 'O', hourlyClock());
    const long = 'x'.repeat(8 * 1024 + 1);
    const out = Buffer.concat([writer.write(Buffer.from('head ')), writer.write(Buffer.from(long)), writer.write(Buffer.from('tail\n'))]).toString();
    const lines = out.split('\n').filter(Boolean);
    assert.equal(lines.length, 2);
    assert.equal(lines[0], `2021-01-01T01:00:00.000000Z 01O head ${long}`);
    assert.equal(lines[1], '2021-01-01T02:00:00.000000Z 01O+tail');
  });

  it('reads the clock to the microsecond', () => {
    assert.match(microsecondTime(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(microsecondTime(Date.UTC(2026, 10, 22, 8, 0, 0) + 123.456), '2026-11-22T08:00:00.123456Z');
  });
});

describe('timestamped log helpers', () => {
  it('split a line into time, stream and text, and leave other lines alone', () => {
    assert.deepEqual(splitTimestampedLine('2026-11-22T08:00:00.123456Z 01E+more\n'), {
      time: '2026-11-22T08:00:00.123456Z', stream: 1, output: 'stderr', continues: true, text: 'more\n',
    });
    assert.equal(splitTimestampedLine('\x1b[0KRunning with gitlab-runner 13.12.0\n'), null);
    assert.equal(splitTimestampedLine('2026-11-22 08:00:00 01O text'), null);
  });

  it('render what the job wrote, continuations joined, each line with its first time', () => {
    const writer = new LineTimestamper(1, 'O', hourlyClock());
    const runner = new LineTimestamper(0, 'O', () => '2021-01-01T00:30:00.000000Z');
    const raw = 'Progress: 10%\r20%\r100%\ndone\n';
    const log = Buffer.concat([writer.write(Buffer.from('Progress: 10%\r20%\r')), runner.write(Buffer.from('runner line\n')), writer.write(Buffer.from('100%\ndone\n'))]).toString();
    assert.deepEqual(renderedLines(log), [
      { time: '2021-01-01T01:00:00.000000Z', text: 'Progress: 10%\r20%\r100%\n' },
      { time: '2021-01-01T00:30:00.000000Z', text: 'runner line\n' },
      { time: '2021-01-01T03:00:00.000000Z', text: 'done\n' },
    ]);
    assert.equal(withoutTimestamps(log), 'Progress: 10%\r20%\r100%\nrunner line\ndone\n');
    assert.notEqual(withoutTimestamps(log), raw, 'the runner line sits where it was written');
    assert.deepEqual(renderedLines('plain\nlog\n'), [{ time: null, text: 'plain\n' }, { time: null, text: 'log\n' }]);
  });
});
