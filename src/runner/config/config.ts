/**
 * Reads config.toml (smol-toml). Errors name the file, line and column; unknown keys are
 * warnings, never fatal. Defaults are gitlab-runner's (see config.example.toml).
 */
import { parse, TomlError } from 'smol-toml';
import type { DockerSettings } from '../../executors/docker/settings.ts';
import { isExecutorName } from '../../executors/registry.ts';
import { LISTEN_ADDRESS_HINT, parseListenAddress } from './listen-address.ts';
import { locateKey, locateTable } from './locate.ts';
import { CACHE_IGNORED, CACHE_KEYS, CUSTOM_BUILD_DIR_KEYS, DOCKER_IGNORED, DOCKER_KEYS, GLOBAL_IGNORED, GLOBAL_KEYS, RUNNER_IGNORED, RUNNER_KEYS, type KeySpec } from './schema.ts';

/** `[runners.docker]`: exactly what the docker executor takes. */
export type DockerConfig = DockerSettings;

export interface RunnerEntry {
  name: string;
  url: string;
  token: string;
  tlsCaFile?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  executor: string;
  limit: number;
  requestConcurrency: number;
  /** KiB */
  outputLimit: number;
  buildsDir?: string;
  cacheDir?: string;
  environment: string[];
  shell: 'bash' | 'sh';
  preGetSourcesScript?: string;
  postGetSourcesScript?: string;
  preBuildScript?: string;
  postBuildScript?: string;
  cloneUrl?: string;
  debugTraceDisabled: boolean;
  docker: DockerConfig;
  cache: { type: string; path?: string; shared: boolean };
  /** `[runners.custom_build_dir] enabled`: unset, the executor's default (docker on, shell off). */
  customBuildDir?: boolean;
  /** `[runners.feature_flags]`: `FF_*` names and whether they are on (a job's variables cannot override them). */
  featureFlags: Record<string, boolean>;
  /** The runner's id, and when its token was obtained and expires, as `register` wrote them. */
  id?: number;
  tokenObtainedAt?: string;
  tokenExpiresAt?: string;
}

export interface RunnerConfig {
  concurrent: number;
  checkInterval: number;
  logLevel: string;
  logFormat: 'runner' | 'text' | 'json';
  listenAddress?: string;
  shutdownTimeout: number;
  runners: RunnerEntry[];
}

export interface ConfigDiagnostic {
  message: string;
  line?: number;
  column?: number;
}

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly diagnostics: ConfigDiagnostic[],
  ) {
    super(diagnostics.map((diagnostic) => formatDiagnostic(file, diagnostic)).join('\n'));
    this.name = 'ConfigError';
  }
}

export function formatDiagnostic(file: string, diagnostic: ConfigDiagnostic): string {
  const where = diagnostic.line ? `${file}:${diagnostic.line}:${diagnostic.column ?? 1}` : file;
  return `${where}: ${diagnostic.message}`;
}

export const DEFAULTS = {
  concurrent: 1,
  checkInterval: 3,
  logLevel: 'info',
  logFormat: 'runner' as const,
  shutdownTimeout: 30,
  limit: 0,
  requestConcurrency: 1,
  outputLimit: 4096,
  shell: 'bash' as const,
};

type Table = Record<string, unknown>;

const isTable = (value: unknown): value is Table => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

export function parseRunnerConfig(text: string, file = 'config.toml'): { config: RunnerConfig; warnings: string[] } {
  let document: Table;
  try {
    document = parse(text) as Table;
  } catch (error) {
    if (error instanceof TomlError) throw new ConfigError(file, [{ message: error.message.split('\n')[0].replace(/^Invalid TOML document: /, 'invalid TOML: '), line: error.line, column: error.column }]);
    throw error;
  }
  const errors: ConfigDiagnostic[] = [];
  const warnings: ConfigDiagnostic[] = [];
  const read = (table: Table, specs: Record<string, KeySpec>, ignored: readonly string[], subTables: readonly string[], where: { path: string; tables: string[]; index?: number }): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(table)) {
      const position = locateKey(text, where.tables, where.index, name);
      const label = where.path ? `${where.path}.${name}` : name;
      if (subTables.includes(name) || (where.path === '' && name === 'coordinator')) continue;
      const spec = specs[name];
      if (!spec) {
        warnings.push({ message: ignored.includes(name) ? `${label} is not supported by this runner and is ignored` : `unknown key ${label} (ignored)`, ...position });
        continue;
      }
      const converted = convert(value, spec, label);
      if (typeof converted === 'string' && converted.startsWith('!')) errors.push({ message: converted.slice(1), ...position });
      else out[spec.as] = converted;
    }
    return out;
  };

  const global = read(document, GLOBAL_KEYS, GLOBAL_IGNORED, ['runners'], { path: '', tables: [] });
  const runnersValue = document.runners ?? [];
  const runners: RunnerEntry[] = [];
  if (!Array.isArray(runnersValue)) errors.push({ message: 'runners must be an array of tables ([[runners]])', ...locateKey(text, [], undefined, 'runners') });
  for (const [index, entry] of (Array.isArray(runnersValue) ? runnersValue : []).entries()) {
    const path = `runners[${index}]`;
    if (!isTable(entry)) {
      errors.push({ message: `${path} must be a table` });
      continue;
    }
    const runner = read(entry, RUNNER_KEYS, RUNNER_IGNORED, ['docker', 'cache', 'feature_flags', 'custom_build_dir'], { path, tables: ['runners'], index });
    const featureFlags: Record<string, boolean> = {};
    if (entry.feature_flags !== undefined && !isTable(entry.feature_flags)) errors.push({ message: `${path}.feature_flags must be a table`, ...locateKey(text, ['runners'], index, 'feature_flags') });
    for (const [name, value] of Object.entries(isTable(entry.feature_flags) ? entry.feature_flags : {})) {
      if (typeof value === 'boolean') featureFlags[name] = value;
      else errors.push({ message: `${path}.feature_flags.${name} must be true or false`, ...locateKey(text, ['runners', 'feature_flags'], index, name) });
    }
    const docker = isTable(entry.docker) ? read(entry.docker, DOCKER_KEYS, DOCKER_IGNORED, [], { path: `${path}.docker`, tables: ['runners', 'docker'], index }) : {};
    const cache = isTable(entry.cache) ? read(entry.cache, CACHE_KEYS, CACHE_IGNORED, [], { path: `${path}.cache`, tables: ['runners', 'cache'], index }) : {};
    const customBuildDir = isTable(entry.custom_build_dir) ? read(entry.custom_build_dir, CUSTOM_BUILD_DIR_KEYS, [], [], { path: `${path}.custom_build_dir`, tables: ['runners', 'custom_build_dir'], index }) : {};
    const position = locateTable(text, 'runners', index);
    for (const required of ['url', 'token', 'executor'] as const) {
      if (typeof runner[required] !== 'string' || runner[required] === '') errors.push({ message: `${path}.${required} is missing`, ...position });
    }
    if (typeof runner.executor === 'string' && runner.executor !== '' && !isExecutorName(runner.executor)) {
      errors.push({ message: `${path}.executor: unknown executor "${runner.executor}" (known: shell, docker)`, ...locateKey(text, ['runners'], index, 'executor') });
    }
    runners.push({
      name: (runner.name as string | undefined) ?? '',
      limit: DEFAULTS.limit,
      requestConcurrency: DEFAULTS.requestConcurrency,
      outputLimit: DEFAULTS.outputLimit,
      environment: [],
      shell: DEFAULTS.shell,
      debugTraceDisabled: false,
      ...(runner as Partial<RunnerEntry>),
      url: (runner.url as string | undefined) ?? '',
      token: (runner.token as string | undefined) ?? '',
      executor: (runner.executor as string | undefined) ?? '',
      docker: docker as DockerConfig,
      cache: { type: (cache.type as string | undefined) ?? '', path: cache.path as string | undefined, shared: (cache.shared as boolean | undefined) ?? false },
      featureFlags,
      ...(typeof customBuildDir.enabled === 'boolean' ? { customBuildDir: customBuildDir.enabled } : {}),
    });
  }
  const config: RunnerConfig = { concurrent: DEFAULTS.concurrent, checkInterval: DEFAULTS.checkInterval, logLevel: DEFAULTS.logLevel, logFormat: DEFAULTS.logFormat, shutdownTimeout: DEFAULTS.shutdownTimeout, ...(global as Partial<RunnerConfig>), runners };
  if (config.concurrent < 1) errors.push({ message: 'concurrent must be at least 1', ...locateKey(text, [], undefined, 'concurrent') });
  if (config.listenAddress !== undefined && config.listenAddress !== '' && !parseListenAddress(config.listenAddress)) {
    errors.push({ message: `listen_address "${config.listenAddress}" ${LISTEN_ADDRESS_HINT}`, ...locateKey(text, [], undefined, 'listen_address') });
  }
  if (errors.length > 0) throw new ConfigError(file, errors);
  return { config, warnings: warnings.map((warning) => formatDiagnostic(file, warning)) };
}

/** pino's name for a `log_level` (gitlab-runner's logrus names `warning` and `panic` included). */
export function pinoLevel(logLevel: string): string {
  if (logLevel === 'warning') return 'warn';
  if (logLevel === 'panic') return 'fatal';
  return logLevel;
}

/** The converted value, or `!message` for a type error. */
function convert(value: unknown, spec: KeySpec, label: string): unknown {
  const { type } = spec;
  if (type === 'string') return typeof value === 'string' ? value : `!${label} must be a string`;
  if (type === 'boolean') return typeof value === 'boolean' ? value : `!${label} must be true or false`;
  if (type === 'integer') {
    if (typeof value === 'bigint') return Number(value);
    return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : `!${label} must be a whole number (0 or more)`;
  }
  if (type === 'datetime') {
    if (value instanceof Date) return value.toISOString();
    return typeof value === 'string' ? value : `!${label} must be a date and time`;
  }
  if (type === 'strings') return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : `!${label} must be an array of strings`;
  if (type === 'pull_policy') {
    const list = typeof value === 'string' ? [value] : value;
    const allowed = ['always', 'if-not-present', 'never'];
    if (!Array.isArray(list) || !list.every((item) => typeof item === 'string' && allowed.includes(item))) return `!${label} must be always, if-not-present or never, or a list of them`;
    return list;
  }
  return typeof value === 'string' && type.oneOf.includes(value) ? value : `!${label} must be one of ${type.oneOf.join(', ')}`;
}
