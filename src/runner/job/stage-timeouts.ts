/**
 * gitlab-runner's `RUNNER_SCRIPT_TIMEOUT` and `RUNNER_AFTER_SCRIPT_TIMEOUT` (GitLab 16.4): Go
 * durations that bound the script's steps and after_script inside the job's timeout. A value
 * that is malformed, negative or longer than what is left of the job is warned about and left
 * out (the default holds: none for the script, the runner's after_script timeout).
 */
import type { JobTrace } from './trace.ts';

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Go's time.ParseDuration, in milliseconds; null when Go would refuse the text. */
export function parseGoDuration(text: string): number | null {
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return null;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < rest.length) {
    const at = PART.lastIndex;
    const match = PART.exec(rest);
    if (!match || match.index !== at) return null;
    total += Number(match[1]) * UNITS[match[2]!]!;
  }
  return sign * total;
}

export interface StageTimeouts {
  /** The script's own bound, or null: only the job's timeout. */
  scriptMs: number | null;
  afterScriptMs: number;
}

export function stageTimeouts(values: { script?: string; afterScript?: string }, defaults: { afterScriptMs: number }, jobLeftMs: number, trace: JobTrace): StageTimeouts {
  const read = (name: string, raw: string | undefined): number | null => {
    if (raw === undefined || raw.trim() === '') return null;
    const duration = parseGoDuration(raw);
    if (duration === null) trace.warning(`Ignoring malformed ${name} timeout: ${raw}`);
    else if (duration < 0) trace.warning(`Ignoring relative ${name} timeout: ${raw}`);
    else if (duration > jobLeftMs) trace.warning(`${name} timeout: ${raw} is longer than job timeout. Setting to job timeout`);
    else if (duration > 0) return duration;
    return null;
  };
  return {
    scriptMs: read('RUNNER_SCRIPT_TIMEOUT', values.script),
    afterScriptMs: read('RUNNER_AFTER_SCRIPT_TIMEOUT', values.afterScript) ?? defaults.afterScriptMs,
  };
}
