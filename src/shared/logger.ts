import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

export interface LoggerSettings {
  level?: string;
  /** Pretty output; defaults to whether stdout is a terminal. */
  pretty?: boolean;
}

/** Redacts credentials wherever they might appear in a logged request. */
const REDACT_PATHS = [
  'req.headers["private-token"]',
  'req.headers["job-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.token',
  '*.password',
];

export function createLogger(settings: LoggerSettings = {}): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? process.env.GANTRY_LOG_LEVEL ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[MASKED]' },
  };
  const pretty = settings.pretty ?? process.stdout.isTTY === true;
  if (pretty) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return pino(options);
}

/** A logger that writes nothing: for tests and embedded use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
