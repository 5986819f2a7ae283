/**
 * What `runner exec` prints: job logs with a name prefix as they arrive (the runner's own
 * sections collapsed to their header line unless verbose; a section the script opens only if
 * it says `[collapsed=true]`), then a summary.
 */
import { StringDecoder } from 'node:string_decoder';
import { splitTimestampedLine } from '../shared/log-lines.ts';

// Section markers (`section_start:<time>:<name>[options]\r\e[0K`) are for web renderers.
const SECTION_MARKER = /section_(start|end):\d+:([A-Za-z0-9_.-]+)(?:\[([^\]]*)\])?\r?\x1b\[0K/g;
const ANSI_ESCAPE = /\x1b\[[0-9;]*[A-Za-z]/g;
const COLOURS = [36, 33, 35, 32, 34, 96, 93, 95, 92, 94];

/** Whether a piece of a line shows anything (not only escape codes). */
const hasText = (piece: string): boolean => piece.replace(ANSI_ESCAPE, '').replace(/\r/g, '') !== '';

/** The job's own output stays open: its script stages and after_script. */
const isScript = (section: string): boolean => /^(?:step_|after_script$)/.test(section);

interface JobLogState {
  decoder: StringDecoder;
  partial: string;
  /** The collapsed section whose lines are being left out. */
  hidden: string | null;
  /** The script section being printed: sections opened in it are the script's own. */
  script: string | null;
}

/** Turns each job's trace bytes into prefixed lines; a partial last line waits for its end. */
export class LogPrinter {
  private readonly states = new Map<number, JobLogState>();
  private readonly width: number;

  constructor(
    private readonly write: (text: string) => void,
    private readonly colour: boolean,
    jobNames: readonly string[],
    private readonly verbose = false,
  ) {
    this.width = Math.min(24, Math.max(8, ...jobNames.map((name) => name.length)));
  }

  /** New bytes of a job's trace; `final` flushes a last line without its newline. */
  add(jobId: number, name: string, bytes: Buffer, final: boolean): void {
    let state = this.states.get(jobId);
    if (!state) {
      state = { decoder: new StringDecoder('utf8'), partial: '', hidden: null, script: null };
      this.states.set(jobId, state);
    }
    const text = state.partial + state.decoder.write(bytes) + (final ? state.decoder.end() : '');
    const lines = text.split('\n');
    state.partial = final ? '' : (lines.pop() ?? '');
    // The trace ends with the runner's colour reset after its last newline: no line of its own.
    if (final && lines.length > 0 && !hasText(lines.at(-1)!)) lines.pop();
    for (const line of lines) {
      for (const shown of this.visible(state, line) ?? []) this.write(`${this.prefix(jobId, name)}${this.colour ? `${shown}\x1b[0m` : shown.replace(ANSI_ESCAPE, '')}\n`);
    }
  }

  /**
   * The line without timestamp and section markers, as the lines GitLab's log shows: a marker
   * after text of the job's starts a new one (a last line the script wrote without its newline
   * stays apart from the next section's header). Null when all of it is inside a collapsed section.
   */
  private visible(state: JobLogState, line: string): string[] | null {
    const text = (splitTimestampedLine(`${line}\n`)?.text.replace(/\n$/, '') ?? line).replace(/\r$/, '');
    const lines: string[] = [];
    let shown = '';
    let anyShown = false;
    let at = 0;
    // The text after a collapsed section's start marker, on its line, is its header: shown.
    let header = false;
    const keep = (piece: string) => {
      if (state.hidden !== null && !header) return;
      shown += piece;
      anyShown = true;
    };
    for (const marker of text.matchAll(SECTION_MARKER)) {
      keep(text.slice(at, marker.index));
      if (hasText(shown)) {
        lines.push(shown);
        shown = '';
      }
      at = marker.index + marker[0].length;
      const [, kind, section = '', options = ''] = marker;
      if (kind === 'end' && section === state.hidden) state.hidden = null;
      if (kind === 'end' && section === state.script) state.script = null;
      if (kind !== 'start' || state.hidden !== null) continue;
      if (state.script === null && isScript(section)) state.script = section;
      // A section the script opens is collapsed only when it asks to be, as GitLab shows it.
      else if (!this.verbose && (state.script === null || /(?:^|,)collapsed=true(?:,|$)/.test(options))) {
        state.hidden = section;
        header = true;
      }
    }
    keep(text.slice(at));
    if (!anyShown) return null;
    if (lines.length === 0 || hasText(shown)) lines.push(shown);
    return lines;
  }

  private prefix(jobId: number, name: string): string {
    const label = name.padEnd(this.width);
    if (!this.colour) return `${label} | `;
    return `\x1b[${COLOURS[jobId % COLOURS.length]}m${label}\x1b[0m | `;
  }
}

export interface ExecIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export interface JobResult {
  id: number;
  name: string;
  stage: string;
  status: string;
  allowFailure: boolean;
  /** Seconds; null when it never ran. */
  duration: number | null;
  startedAt: string | null;
  finishedAt: string | null;
  failureReason: string | null;
  /** Found in its log by its `coverage` regex (percent); null without. */
  coverage?: number | null;
  /** The pipeline's id (child pipelines' jobs have their own). */
  pipelineId: number;
  /** The trigger jobs whose child pipelines hold it, outermost first: empty in the run's own pipeline. */
  upstream?: string[];
  /** Where its artifacts were unpacked, if it has any. */
  artifacts?: string | null;
  /** The file holding its whole trace. */
  log?: string | null;
  /** With --reuse: it took the artifacts and status of its last successful run instead of running. */
  reused?: boolean;
  /** A bridge whose downstream pipeline could not be created: why (its configuration errors, or the rules that left it no job...). */
  downstreamErrors?: string;
}

export interface ExecResult {
  status: string;
  exitCode: number;
  pipelineId: number;
  /** Its `workflow:name`, expanded; null without one. */
  pipelineName: string | null;
  /** From the process's start to the first job's start (null when no job ran). */
  startupMs: number | null;
  jobs: JobResult[];
}

/** The jobs' table (a COVERAGE column when a job has a coverage), where their logs and artifacts are, the pipeline's status. */
export function formatSummary(result: ExecResult): string {
  const withCoverage = result.jobs.some((job) => job.coverage != null);
  // A child pipeline's job by the trigger jobs above it: `spawn › rspec` beside the parent's own `rspec`.
  const named = (job: JobResult): string => [...(job.upstream ?? []), job.name].join(' › ');
  const rows = result.jobs.map((job) => [
    named(job),
    job.stage,
    job.reused ? 'reused' : job.status === 'failed' && job.allowFailure ? 'failed (allowed)' : job.status,
    job.duration === null ? '-' : `${job.duration.toFixed(1)} s`,
    ...(withCoverage ? [job.coverage == null ? '-' : `${String(job.coverage)}%`] : []),
    job.failureReason ?? '',
  ]);
  const header = ['JOB', 'STAGE', 'STATUS', 'DURATION', ...(withCoverage ? ['COVERAGE'] : []), 'FAILURE'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  const downstream = result.jobs.flatMap((job) => (job.downstreamErrors ? [`${named(job)}: its downstream pipeline was not created: ${job.downstreamErrors}`] : []));
  const files = result.jobs.flatMap((job) => [
    ...(job.log ? [`log of ${named(job)}: ${job.log}`] : []),
    ...(job.artifacts ? [`artifacts of ${named(job)}: ${job.artifacts}`] : []),
  ]);
  return `${[line(header), ...rows.map(line), ...(downstream.length > 0 ? ['', ...downstream] : []), ...(files.length > 0 ? ['', ...files] : []), '', `pipeline ${result.pipelineName === null ? '' : `"${result.pipelineName}" `}${result.status}`].join('\n')}\n`;
}
