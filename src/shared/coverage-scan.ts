/**
 * GitLab's coverage extraction (`Gitlab::Ci::Trace::Stream#extract_coverage`) over a block of
 * whole log lines, run in the regex thread (regex-budget-worker.ts): the lines are tried from
 * the last to the first; on the first line the pattern matches, the last match is taken (its
 * last group when the pattern has groups) and the first number in it is the coverage. A line
 * whose match holds no number is passed over. ANSI sequences are matched as they are, as
 * GitLab does; the timestamp prefix of `FF_TIMESTAMPS` logs is cut off first.
 */
import type { RE2JS } from 're2js';
import { TIMESTAMP_PREFIX_LENGTH } from './log-lines.ts';

/**
 * `found`: the coverage's text (`"81.25"`), or null when the matching line's last group took
 * part in no match (GitLab's extraction fails there and records no coverage); `none`: no line
 * of the block gives a number, earlier lines may.
 */
export type CoverageFind = { kind: 'found'; coverage: string | null } | { kind: 'none' };

const NUMBER = /\d+(\.\d+)?/;

export function lastCoverageIn(regexp: RE2JS, text: string, stripTimestamps: boolean): CoverageFind {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    let line = text.slice(start, end);
    end = start - 1;
    // Ruby's chomp: the line's `\r\n` or `\r` ending too.
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line === '') continue;
    if (stripTimestamps) line = line.slice(TIMESTAMP_PREFIX_LENGTH);
    const taken = lastMatchOf(regexp, line);
    if (taken === undefined) continue;
    if (taken === null) return { kind: 'found', coverage: null };
    const number = NUMBER.exec(taken);
    if (number) return { kind: 'found', coverage: number[0] };
  }
  return { kind: 'none' };
}

/** The last match's text (its last group's with groups); undefined without a match, null for a group that took no part. */
function lastMatchOf(regexp: RE2JS, line: string): string | null | undefined {
  const matcher = regexp.matcher(line);
  const groups = regexp.groupCount();
  let taken: string | null | undefined;
  while (matcher.find()) taken = matcher.group(groups);
  return taken;
}
