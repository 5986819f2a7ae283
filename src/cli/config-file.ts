import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { INSTANCE_TIMING_DEFAULTS, MAX_TIMER_MS } from '../coordinator/services/instance/instances.ts';

export interface CoordinatorFileConfig {
  port?: number;
  host?: string;
  data_dir?: string;
  database_url?: string;
  external_url?: string;
  /** Request body limits in bytes (CoordinatorOptions bodyLimit, contentBodyLimit, anonymousBodyLimit, uploadBodyLimit). */
  body_limit?: number;
  content_body_limit?: number;
  anonymous_body_limit?: number;
  upload_body_limit?: number;
  /** Seconds an idle `POST /jobs/request` is held (CoordinatorOptions jobRequestLongPollSeconds). */
  job_request_long_poll_seconds?: number;
  /** Members and central directory bytes an artifacts archive may have (CoordinatorOptions ci.archiveMemberLimits). */
  artifact_archive_max_members?: number;
  artifact_archive_max_directory_bytes?: number;
  /** What closing gives requests in flight, in milliseconds (CoordinatorOptions shutdownGraceMs). */
  shutdown_grace_ms?: number;
  /** Who may read the monitoring endpoints (CoordinatorOptions monitoringIpWhitelist). */
  monitoring_ip_whitelist?: string[];
  /** Keys of the secrets stored in the database, the current one first (CoordinatorOptions secretKeys). */
  secret_keys?: string[];
  /** Several coordinators, in milliseconds (CoordinatorOptions instances). */
  instance_heartbeat_interval_ms?: number;
  instance_stale_after_ms?: number;
  instance_upkeep_interval_ms?: number;
  /** Integration mail (CoordinatorOptions mail): the From address and an SMTP server (default: the maildir). */
  mail_from?: string;
  smtp_host?: string;
  smtp_port?: number;
  smtp_user?: string;
  smtp_password?: string;
}

const KEYS: Record<keyof CoordinatorFileConfig, 'number' | 'string' | 'string array'> = {
  port: 'number',
  host: 'string',
  data_dir: 'string',
  database_url: 'string',
  external_url: 'string',
  body_limit: 'number',
  content_body_limit: 'number',
  anonymous_body_limit: 'number',
  upload_body_limit: 'number',
  job_request_long_poll_seconds: 'number',
  artifact_archive_max_members: 'number',
  artifact_archive_max_directory_bytes: 'number',
  shutdown_grace_ms: 'number',
  monitoring_ip_whitelist: 'string array',
  secret_keys: 'string array',
  instance_heartbeat_interval_ms: 'number',
  instance_stale_after_ms: 'number',
  instance_upkeep_interval_ms: 'number',
  mail_from: 'string',
  smtp_host: 'string',
  smtp_port: 'number',
  smtp_user: 'string',
  smtp_password: 'string',
};

/** Keys that must be whole numbers above 0. */
const POSITIVE = /_limit$|^artifact_archive_max_|^shutdown_grace_ms$/;
/** Intervals a timer waits: whole milliseconds from 1 to MAX_TIMER_MS. */
const TIMER = /^instance_.*_ms$/;

/** Reads the `[coordinator]` table of a TOML file; unknown keys and wrong types are errors. */
export function readCoordinatorConfig(file: string): CoordinatorFileConfig {
  const document = parse(readFileSync(file, 'utf8'));
  const table = document.coordinator ?? {};
  if (typeof table !== 'object' || Array.isArray(table) || table instanceof Date) throw new Error(`${file}: [coordinator] must be a table`);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(table)) {
    const expected = KEYS[key as keyof CoordinatorFileConfig];
    if (!expected) throw new Error(`${file}: unknown key coordinator.${key}`);
    const fits = expected === 'string array' ? Array.isArray(value) && value.every((item) => typeof item === 'string') : typeof value === expected || (expected === 'number' && typeof value === 'bigint');
    if (!fits) {
      throw new Error(`${file}: coordinator.${key} must be a ${expected}`);
    }
    out[key] = typeof value === 'bigint' ? Number(value) : value;
    if (POSITIVE.test(key) && !(Number.isSafeInteger(out[key]) && (out[key] as number) > 0)) {
      throw new Error(`${file}: coordinator.${key} must be a whole number${key.endsWith('_limit') || key.endsWith('_bytes') ? ' of bytes' : ''} above 0`);
    }
    if (TIMER.test(key) && !(Number.isSafeInteger(out[key]) && (out[key] as number) >= 1 && (out[key] as number) <= MAX_TIMER_MS)) {
      throw new Error(`${file}: coordinator.${key} must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`);
    }
  }
  const config = out as CoordinatorFileConfig;
  const heartbeat = config.instance_heartbeat_interval_ms ?? INSTANCE_TIMING_DEFAULTS.heartbeatIntervalMs;
  const staleAfter = config.instance_stale_after_ms ?? INSTANCE_TIMING_DEFAULTS.staleAfterMs;
  if (staleAfter < 2 * heartbeat) {
    throw new Error(`${file}: coordinator.instance_stale_after_ms (${staleAfter}) must be at least twice coordinator.instance_heartbeat_interval_ms (${heartbeat})`);
  }
  return config;
}
