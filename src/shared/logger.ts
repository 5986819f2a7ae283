import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type PinoPretty from 'pino-pretty';
import { MASK, maskSecretsInText, maskUrl } from './secret-masking.ts';

export type { Logger };

export interface LoggerSettings {
  level?: string;
  /** Pretty output; defaults to whether stdout is a terminal. */
  pretty?: boolean;
  /** Where JSON lines go instead of stdout (not with pretty output). */
  destination?: DestinationStream;
  /** Called with the numeric level of every line written, children's included (the runner counts warnings and errors). */
  onLine?: (level: number) => void;
}

/** Credential headers, masked whole wherever a logged object carries them. */
const REDACT_PATHS = [
  'req.headers["private-token"]',
  'req.headers["job-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.token',
  '*.password',
  'req.url',
];

/** Masks a credential in a logged URL's query (by decoded parameter name); any other redacted value is masked whole. */
export function censorLogged(value: unknown, path: string[]): unknown {
  if (path.at(-1) === 'url' && typeof value === 'string') return maskUrl(value);
  return MASK;
}

export function createLogger(settings: LoggerSettings = {}): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? process.env.GANTRY_LOG_LEVEL ?? 'info',
    redact: { paths: REDACT_PATHS, censor: censorLogged },
    // The last word on every line, whatever logged it: URLs with userinfo, credential query
    // parameters (decoded names) and credential headers quoted in messages, errors and git output.
    hooks: { streamWrite: maskSecretsInText },
  };
  const { onLine } = settings;
  if (onLine) {
    options.hooks = {
      ...options.hooks,
      logMethod(args, method, level) {
        onLine(level);
        method.apply(this, args);
      },
    };
  }
  const pretty = settings.pretty ?? (settings.destination === undefined && process.stdout.isTTY === true);
  if (pretty) {
    // In this thread, loaded only now: as a transport it would run in a worker thread, a second
    // V8 heap (about 10 MB) for a few lines a minute. Synchronous, so no line is lost at exit.
    const build = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
    return pino(options, build({ colorize: true, sync: true }));
  }
  return settings.destination ? pino(options, settings.destination) : pino(options);
}

/** A logger that writes nothing: for tests and embedded use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
