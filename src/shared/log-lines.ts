/**
 * Job log lines with timestamps, as gitlab-runner 18.7+ writes them when `FF_TIMESTAMPS` is
 * on (and Gantry's runner too): every line starts with
 *
 *     <RFC 3339 time, 6 fraction digits>Z <stream id: 2 hex digits><O|E><' ' or '+'>
 *
 * — `O`/`E` for stdout/stderr, `+` when the line continues the previous one of its stream
 * (a progress bar's `\r`, or a line longer than the runner buffers). Coordinators store and
 * serve such logs byte for byte; whatever renders a log (`runner exec`, web pages) shows the
 * time apart and the text without the prefix, through these helpers.
 */

/** `2026-11-22T08:00:00.123456Z 01O ` is 32 bytes. */
export const TIMESTAMP_PREFIX_LENGTH = 32;

/** The stream of the runner's own lines (gitlab-runner's `StreamExecutorLevel`). */
export const RUNNER_STREAM = 0;
/** The stream of the job's script output (`StreamWorkLevel`). */
export const WORK_STREAM = 1;

export interface TimestampedLine {
  /** RFC 3339 with microseconds, UTC (`2026-11-22T08:00:00.123456Z`). */
  time: string;
  /** 0–255. */
  stream: number;
  /** stdout or stderr. */
  output: 'stdout' | 'stderr';
  /** The line continues the previous line of its stream. */
  continues: boolean;
  /** The line's text, its line ending included. */
  text: string;
}

// Fixed-width and anchored: linear in the prefix, whatever the text holds.
const PREFIX = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z) ([0-9a-f]{2})([OE])([ +])/;

/** The parts of one timestamped line; null for a line without the prefix (a log written without FF_TIMESTAMPS). */
export function splitTimestampedLine(line: string): TimestampedLine | null {
  const match = PREFIX.exec(line.slice(0, TIMESTAMP_PREFIX_LENGTH));
  if (!match) return null;
  return {
    time: match[1],
    stream: Number.parseInt(match[2], 16),
    output: match[3] === 'E' ? 'stderr' : 'stdout',
    continues: match[4] === '+',
    text: line.slice(TIMESTAMP_PREFIX_LENGTH),
  };
}

/** Whether a log (its first line is enough) was written with timestamps. */
export function hasTimestamps(log: string): boolean {
  return splitTimestampedLine(log) !== null;
}

/** One line as a renderer shows it: the time apart (null when the line has none) and the text. */
export interface RenderedLine {
  time: string | null;
  text: string;
}

/**
 * A whole log as renderers show it: one entry per line of output, the time of its first part,
 * continuations (`+`) joined back to the line they continue (the `\n` the runner added to end
 * a partial line removed), so the text is what the job wrote. Lines without the prefix are
 * kept as they are, with no time.
 */
export function renderedLines(log: string): RenderedLine[] {
  const lines: RenderedLine[] = [];
  // The line a continuation joins: the last one of its stream (streams interleave).
  const lastOfStream = new Map<string, RenderedLine>();
  let start = 0;
  while (start < log.length) {
    const end = log.indexOf('\n', start);
    const line = end < 0 ? log.slice(start) : log.slice(start, end + 1);
    start = end < 0 ? log.length : end + 1;
    const parts = splitTimestampedLine(line);
    if (!parts) {
      lines.push({ time: null, text: line });
      continue;
    }
    const stream = `${parts.stream}${parts.output}`;
    const previous = lastOfStream.get(stream);
    if (parts.continues && previous) {
      previous.text = (previous.text.endsWith('\n') ? previous.text.slice(0, -1) : previous.text) + parts.text;
      continue;
    }
    const rendered = { time: parts.time, text: parts.text };
    lines.push(rendered);
    lastOfStream.set(stream, rendered);
  }
  return lines;
}

/** The log's text without timestamp prefixes (what the job wrote). */
export function withoutTimestamps(log: string): string {
  return renderedLines(log).map((line) => line.text).join('');
}
