import { AnsiUp } from 'ansi_up';

/**
 * Turns a job log, fed in chunks as they arrive, into lines and section markers for the job
 * page. No DOM here: the browser script renders what this answers, and Node tests check it.
 */

/** One line of the log as the page shows it. `html` is ansi_up's output: text escaped, colours as classes. */
export interface LogLine {
  number: number;
  html: string;
  /** The line without colours, for search. */
  text: string;
  /** `HH:MM:SS` (UTC) from gitlab-runner's per-line timestamp; null without one. */
  time: string | null;
}

export type LogEvent =
  | { kind: 'line'; line: LogLine }
  /** More text for the line before (gitlab-runner's `+` continuation of a timestamped line). */
  | { kind: 'append'; number: number; html: string; text: string }
  /** Opens a section; its header is the next line. `startedAt` in Unix seconds. */
  | { kind: 'section-start'; name: string; startedAt: number; collapsed: boolean }
  | { kind: 'section-end'; name: string; endedAt: number };

/**
 * gitlab-runner 18.7+ (`FF_TIMESTAMPS`): `2024-05-14T11:19:19.899359Z 00O ` before each line: an RFC 3339
 * time with microseconds, the stream number in two hex digits, `O`/`E` for stdout/stderr, then
 * a space, or `+` when the text continues the line before.
 */
const TIMESTAMP = /^\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d)\.\d{6}Z [0-9a-f]{2}[OE]([ +])/;
/** GitLab's section markers; the name is letters, digits, `_`, `.` and `-`. */
const SECTION = /(?:\x1b\[0K)?section_(start|end):(\d{1,12}):([A-Za-z0-9_.-]{1,200})(\[[^\]\r\n]{0,200}\])?\r?(?:\x1b\[0K)?/g;
const ESCAPES = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b./g;

/** The sixteen colours ansi_up names; truecolor (which it would draw with an inline style) maps to the nearest. */
const NAMED_COLOURS: ReadonlyArray<readonly [string, number, number, number]> = [
  ['ansi-black', 0, 0, 0], ['ansi-red', 187, 0, 0], ['ansi-green', 0, 187, 0], ['ansi-yellow', 187, 187, 0],
  ['ansi-blue', 0, 0, 187], ['ansi-magenta', 187, 0, 187], ['ansi-cyan', 0, 187, 187], ['ansi-white', 255, 255, 255],
  ['ansi-bright-black', 85, 85, 85], ['ansi-bright-red', 255, 85, 85], ['ansi-bright-green', 0, 255, 0], ['ansi-bright-yellow', 255, 255, 85],
  ['ansi-bright-blue', 85, 85, 255], ['ansi-bright-magenta', 255, 85, 255], ['ansi-bright-cyan', 85, 255, 255], ['ansi-bright-white', 255, 255, 255],
];
const STYLE_CLASSES: Record<string, string> = { 'font-weight:bold': 'ansi-bold', 'opacity:0.7': 'ansi-faint', 'font-style:italic': 'ansi-italic', 'text-decoration:underline': 'ansi-underline' };

function nearestColour(red: number, green: number, blue: number): string {
  let best = NAMED_COLOURS[0]![0];
  let distance = Infinity;
  for (const [name, r, g, b] of NAMED_COLOURS) {
    const d = (r - red) ** 2 + (g - green) ** 2 + (b - blue) ** 2;
    if (d < distance) [best, distance] = [name, d];
  }
  return best;
}

/** The pages' Content-Security-Policy forbids inline styles: ansi_up's few `style="…"` become classes. */
function stylesToClasses(markup: string): string {
  return markup.replace(/<span style="([^"]*)"(?: class="([^"]*)")?>/g, (_match, styles: string, classes: string | undefined) => {
    const names = classes ? classes.split(' ') : [];
    for (const style of styles.split(';')) {
      const colour = /^(color|background-color):rgb\((\d+),(\d+),(\d+)\)$/.exec(style);
      if (colour) names.push(`${nearestColour(Number(colour[2]), Number(colour[3]), Number(colour[4]))}-${colour[1] === 'color' ? 'fg' : 'bg'}`);
      else if (STYLE_CLASSES[style]) names.push(STYLE_CLASSES[style]);
    }
    return `<span class="${names.join(' ')}">`;
  });
}

export function plainText(text: string): string {
  return text.replace(ESCAPES, '');
}

/** `mm:ss`, or `h:mm:ss` from an hour, as GitLab prints a section's duration. */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const two = (value: number) => String(value).padStart(2, '0');
  const hours = Math.floor(whole / 3600);
  const rest = `${two(Math.floor((whole % 3600) / 60))}:${two(whole % 60)}`;
  return hours > 0 ? `${hours}:${rest}` : rest;
}

export class LogParser {
  private readonly ansi = new AnsiUp();
  private tail = '';
  private lineCount = 0;

  constructor() {
    this.ansi.use_classes = true;
    this.ansi.escape_html = true;
  }

  get lines(): number {
    return this.lineCount;
  }

  /** The complete lines of `chunk` (with what was left over before); an unfinished last line waits for its end. */
  push(chunk: string): LogEvent[] {
    const text = this.tail + chunk;
    const lastBreak = text.lastIndexOf('\n');
    if (lastBreak < 0) {
      this.tail = text;
      return [];
    }
    this.tail = text.slice(lastBreak + 1);
    const events: LogEvent[] = [];
    let start = 0;
    while (start <= lastBreak) {
      const end = text.indexOf('\n', start);
      this.parseLine(text.slice(start, end), events);
      start = end + 1;
    }
    return events;
  }

  /** The last line when the log ends without a newline (the job finished). */
  flush(): LogEvent[] {
    const events: LogEvent[] = [];
    if (this.tail !== '') this.parseLine(this.tail, events);
    this.tail = '';
    return events;
  }

  private parseLine(raw: string, events: LogEvent[]): void {
    let rest = raw;
    let time: string | null = null;
    let continues = false;
    const stamp = TIMESTAMP.exec(rest);
    if (stamp) {
      time = stamp[1]!;
      continues = stamp[2] === '+';
      rest = rest.slice(stamp[0].length);
    }
    let sectionHeader = false;
    SECTION.lastIndex = 0;
    let marker: RegExpExecArray | null;
    let kept = '';
    let from = 0;
    while ((marker = SECTION.exec(rest)) !== null) {
      kept += rest.slice(from, marker.index);
      from = SECTION.lastIndex;
      const [, kind, at, name, options] = marker;
      if (kind === 'start') {
        events.push({ kind: 'section-start', name: name!, startedAt: Number(at), collapsed: /collapsed=true/.test(options ?? '') });
        sectionHeader = true;
      } else {
        events.push({ kind: 'section-end', name: name!, endedAt: Number(at) });
      }
    }
    kept += rest.slice(from);
    // A section's end with nothing after it is a marker only, not a line of its own.
    if (kept.replace(ESCAPES, '').replace(/\r/g, '') === '' && from > 0 && !sectionHeader) return;
    const html = this.render(kept);
    const text = plainText(this.lastSegment(kept));
    if (continues && !sectionHeader && this.lineCount > 0) {
      events.push({ kind: 'append', number: this.lineCount, html, text });
      return;
    }
    this.lineCount += 1;
    events.push({ kind: 'line', line: { number: this.lineCount, html, text, time } });
  }

  private lastSegment(text: string): string {
    const segments = text.split('\r');
    for (let index = segments.length - 1; index >= 0; index -= 1) if (plainText(segments[index]!) !== '') return segments[index]!;
    return '';
  }

  /** A terminal returns to the line's start at `\r`: the last non-empty segment is what stays; the others still set colours. */
  private render(text: string): string {
    const segments = text.split('\r');
    let shown = -1;
    for (let index = segments.length - 1; index >= 0; index -= 1) {
      if (plainText(segments[index]!) !== '') {
        shown = index;
        break;
      }
    }
    let html = '';
    for (let index = 0; index < segments.length; index += 1) {
      const out = this.ansi.ansi_to_html(segments[index]!);
      if (index === shown) html = out;
    }
    return stylesToClasses(html);
  }
}
