/** Test support for the daemon's outputs: Prometheus text exposition and captured pino lines. */
import { createLogger, type Logger } from '../../src/shared/logger.ts';

/** The value of one sample (`name{labels} value`) whose labels include `labels`; undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) found[pair[1]] = pair[2];
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A JSON logger whose lines land in `lines`. */
export function capturingLogger(level = 'info', onLine?: (level: number) => void): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger({
    level,
    pretty: false,
    onLine,
    destination: { write: (text: string) => void lines.push(JSON.parse(text) as LogLine) },
  });
  return { logger, lines };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'a condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
