import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration, LogParser, type LogEvent } from '../../src/coordinator/web/client/log-parser.ts';

const ESC = '\x1b';

function lines(events: LogEvent[]) {
  return events.filter((event) => event.kind === 'line').map((event) => event.line);
}

describe('the job log parser', () => {
  it('colours with classes (the CSP allows no inline style) and escapes HTML', () => {
    const [line] = lines(new LogParser().push(`${ESC}[31;1mred <b>&</b>${ESC}[0m plain\n`));
    assert.equal(line!.html, '<span class="ansi-red-fg ansi-bold">red &lt;b&gt;&amp;&lt;/b&gt;</span> plain');
    assert.equal(line!.text, 'red <b>&</b> plain');
    assert.doesNotMatch(line!.html, /style=/);
  });

  it('maps 256-colour and truecolour to the nearest named colour', () => {
    const [line] = lines(new LogParser().push(`${ESC}[38;5;196mA${ESC}[38;2;0;0;250mB\n`));
    assert.equal(line!.html, '<span class="ansi-red-fg">A</span><span class="ansi-blue-fg">B</span>');
  });

  it('keeps colour state across chunks and lines, and waits for a line to end', () => {
    const parser = new LogParser();
    assert.deepEqual(parser.push(`${ESC}[32mgre`), []);
    const [first] = lines(parser.push('en\nstill\n'));
    assert.equal(first!.html, '<span class="ansi-green-fg">green</span>');
    assert.equal(parser.lines, 2);
    const [last] = lines(parser.flush());
    assert.equal(last, undefined);
  });

  it('shows what a terminal shows of a \\r progress line: its last segment', () => {
    const [line] = lines(new LogParser().push('10%\r50%\r100% done\r\n'));
    assert.equal(line!.text, '100% done');
    assert.equal(line!.html, '100% done');
  });

  it('opens and closes sections from their markers, with collapsed=true and the header line', () => {
    const parser = new LogParser();
    const events = parser.push([
      `${ESC}[0Ksection_start:1700000000:prepare[collapsed=true]\r${ESC}[0K${ESC}[36;1mPreparing${ESC}[0;m`,
      'inside',
      `${ESC}[0Ksection_end:1700000075:prepare\r${ESC}[0K`,
      'after',
      '',
    ].join('\n'));
    assert.deepEqual(events.map((event) => event.kind), ['section-start', 'line', 'line', 'section-end', 'line']);
    assert.deepEqual(events[0], { kind: 'section-start', name: 'prepare', startedAt: 1700000000, collapsed: true });
    assert.equal(lines(events)[0]!.text, 'Preparing');
    assert.deepEqual(events[3], { kind: 'section-end', name: 'prepare', endedAt: 1700000075 });
    assert.equal(formatDuration(75), '01:15');
    assert.equal(formatDuration(3725), '1:02:05');
  });

  it("takes gitlab-runner's per-line timestamps off the text, and appends its + continuations", () => {
    const events = new LogParser().push([
      `2026-09-26T22:30:07.958626Z 00O ${ESC}[32mRunning${ESC}[0m`,
      '2026-09-26T22:30:07.959717Z 00O+ more',
      '2026-09-26T22:30:08.397925Z 01E second',
      '',
    ].join('\n'));
    assert.deepEqual(events.map((event) => event.kind), ['line', 'append', 'line']);
    const [first, second] = lines(events);
    assert.equal(first!.time, '22:30:07');
    assert.equal(first!.text, 'Running');
    assert.deepEqual(events[1], { kind: 'append', number: 1, html: ' more', text: ' more' });
    assert.equal(second!.time, '22:30:08');
    assert.equal(second!.number, 2);
    assert.equal(second!.html, 'second');
  });
});
