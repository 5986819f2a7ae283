/** What `runner exec` prints: job logs with a name prefix as they arrive, then a summary. */
import { StringDecoder } from 'node:string_decoder';
import { splitTimestampedLine } from '../shared/log-lines.ts';

// Section markers (`section_start:<time>:<name>[options]\r\e[0K`) are for web renderers.
const SECTION_MARKER = /section_(?:start|end):\d+:[A-Za-z0-9_.-]+(?:\[[^\]]*\])?\r?\x1b\[0K/g;
const ANSI_ESCAPE = /\x1b\[[0-9;]*[A-Za-z]/g;
const COLOURS = [36, 33, 35, 32, 34, 96, 93, 95, 92, 94];

/** Turns each job's trace bytes into prefixed lines; a partial last line waits for its end. */
export class LogPrinter {
  private readonly decoders = new Map<number, { decoder: StringDecoder; partial: string }>();
  private readonly width: number;

  constructor(
    private readonly write: (text: string) => void,
    private readonly colour: boolean,
    jobNames: readonly string[],
  ) {
    this.width = Math.min(24, Math.max(8, ...jobNames.map((name) => name.length)));
  }

  /** New bytes of a job's trace; `final` flushes a last line without its newline. */
  add(jobId: number, name: string, bytes: Buffer, final: boolean): void {
    let state = this.decoders.get(jobId);
    if (!state) {
      state = { decoder: new StringDecoder('utf8'), partial: '' };
      this.decoders.set(jobId, state);
    }
    const text = state.partial + state.decoder.write(bytes) + (final ? state.decoder.end() : '');
    const lines = text.split('\n');
    state.partial = final ? '' : (lines.pop() ?? '');
    if (final && lines.at(-1) === '') lines.pop();
    for (const line of lines) {
      const text = readable(line);
      this.write(`${this.prefix(jobId, name)}${this.colour ? `${text}\x1b[0m` : text.replace(ANSI_ESCAPE, '')}\n`);
    }
  }

  private prefix(jobId: number, name: string): string {
    const label = name.padEnd(this.width);
    if (!this.colour) return `${label} | `;
    return `\x1b[${COLOURS[jobId % COLOURS.length]}m${label}\x1b[0m | `;
  }
}

function readable(line: string): string {
  const text = splitTimestampedLine(`${line}\n`)?.text.replace(/\n$/, '') ?? line;
  return text.replace(SECTION_MARKER, '').replace(/\r$/, '');
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
  /** The pipeline's id (child pipelines' jobs have their own). */
  pipelineId: number;
  /** Where its artifacts were unpacked, if it has any. */
  artifacts?: string | null;
}

export interface ExecResult {
  status: string;
  exitCode: number;
  pipelineId: number;
  /** From the process's start to the first job's start (null when no job ran). */
  startupMs: number | null;
  jobs: JobResult[];
}

export function formatSummary(result: ExecResult): string {
  const rows = result.jobs.map((job) => [
    job.name,
    job.stage,
    job.status === 'failed' && job.allowFailure ? 'failed (allowed)' : job.status,
    job.duration === null ? '-' : `${job.duration.toFixed(1)} s`,
    job.failureReason ?? '',
  ]);
  const header = ['JOB', 'STAGE', 'STATUS', 'DURATION', 'FAILURE'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  const artifacts = result.jobs.flatMap((job) => (job.artifacts ? [`artifacts of ${job.name}: ${job.artifacts}`] : []));
  return `${[line(header), ...rows.map(line), ...(artifacts.length > 0 ? ['', ...artifacts] : []), '', `pipeline ${result.status}`].join('\n')}\n`;
}
