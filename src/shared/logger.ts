import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

export interface LoggerSettings {
  level?: string;
  /** Pretty output; defaults to whether stdout is a terminal. */
  pretty?: boolean;
  /** Where JSON lines go instead of stdout (not with pretty output). */
  destination?: DestinationStream;
}

/** Redacts credentials wherever they might appear in a logged request. */
const REDACT_PATHS = [
  'req.headers["private-token"]',
  'req.headers["job-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.token',
  '*.password',
  'req.url',
];

/** Query parameters that carry a credential (`?private_token=...` is as good as the header). */
const SECRET_QUERY_PARAMETER = /([?&](?:private_token|job_token|access_token|token|password)=)[^&#]*/gi;

/** Masks a credential in a logged URL's query; any other redacted value is masked whole. */
export function censorLogged(value: unknown, path: string[]): unknown {
  if (path.at(-1) === 'url' && typeof value === 'string') return value.replace(SECRET_QUERY_PARAMETER, '$1[MASKED]');
  return '[MASKED]';
}

export function createLogger(settings: LoggerSettings = {}): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? process.env.GANTRY_LOG_LEVEL ?? 'info',
    redact: { paths: REDACT_PATHS, censor: censorLogged },
  };
  const pretty = settings.pretty ?? (settings.destination === undefined && process.stdout.isTTY === true);
  if (pretty) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return settings.destination ? pino(options, settings.destination) : pino(options);
}

/** A logger that writes nothing: for tests and embedded use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
