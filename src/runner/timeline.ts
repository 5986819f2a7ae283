/**
 * `GANTRY_EXEC_TRACE=1`: `+ms phase` lines on stderr, milliseconds since the process started,
 * for the steps of a run (`runner exec`'s and the runner's). Off, a mark costs one comparison.
 */
import { performance } from 'node:perf_hooks';

const enabled = process.env.GANTRY_EXEC_TRACE === '1';

export function timelineMark(phase: string): void {
  if (enabled) process.stderr.write(`+${Math.round(performance.now())}ms ${phase}\n`);
}
