/**
 * What `coordinator serve` and `coordinator start` run with, from their flags, the GANTRY_*
 * variables and the `[coordinator]` table of the config file (in that order of precedence).
 */
import type { CoordinatorSettings } from './commands/settings.ts';
import { readCoordinatorConfig, type CoordinatorFileConfig } from './config-file.ts';
import type { MailOptions } from '../coordinator/services/integrations/mail-outbox.ts';

export interface CommonArgs {
  config?: string;
  port?: number;
  host?: string;
  'data-dir'?: string;
  'database-url'?: string;
  'external-url'?: string;
  'job-request-long-poll'?: number;
}

export function resolveSettings(args: CommonArgs, env: NodeJS.ProcessEnv, defaultHost: string): CoordinatorSettings {
  const file: CoordinatorFileConfig = args.config ? readCoordinatorConfig(args.config) : {};
  const port = args.port ?? (env.GANTRY_PORT ? Number(env.GANTRY_PORT) : undefined) ?? file.port ?? 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${port}`);
  const longPoll = args['job-request-long-poll'] ?? file.job_request_long_poll_seconds;
  if (longPoll !== undefined && !(Number.isInteger(longPoll) && longPoll >= 0 && longPoll <= 540)) {
    throw new Error(`invalid job request long poll: ${longPoll} (whole seconds from 0 to 540)`);
  }
  return {
    port,
    host: args.host ?? env.GANTRY_HOST ?? file.host ?? defaultHost,
    dataDir: args['data-dir'] ?? env.GANTRY_DATA_DIR ?? file.data_dir ?? './data',
    databaseUrl: args['database-url'] || env.GANTRY_DATABASE_URL || file.database_url || undefined,
    externalUrl: args['external-url'] || env.GANTRY_EXTERNAL_URL || file.external_url || undefined,
    rootToken: env.GANTRY_ROOT_TOKEN || undefined,
    secretKeys: env.GANTRY_SECRET_KEYS ? listOf(env.GANTRY_SECRET_KEYS) : file.secret_keys,
    jobRequestLongPollSeconds: longPoll,
    monitoringIpWhitelist: env.GANTRY_MONITORING_IP_WHITELIST !== undefined ? listOf(env.GANTRY_MONITORING_IP_WHITELIST) : file.monitoring_ip_whitelist,
    bodyLimits: { bodyLimit: file.body_limit, contentBodyLimit: file.content_body_limit, anonymousBodyLimit: file.anonymous_body_limit, uploadBodyLimit: file.upload_body_limit },
    archiveMemberLimits: { maxMembers: file.artifact_archive_max_members, maxDirectoryBytes: file.artifact_archive_max_directory_bytes },
    shutdownGraceMs: file.shutdown_grace_ms,
    instances: { heartbeatIntervalMs: file.instance_heartbeat_interval_ms, staleAfterMs: file.instance_stale_after_ms, upkeepIntervalMs: file.instance_upkeep_interval_ms },
    mail: mailSettings(env, file),
  };
}

/** Integration mail: GANTRY_MAIL_FROM and GANTRY_SMTP_* over the file's mail_from and smtp_* keys; SMTP only with a host. */
function mailSettings(env: NodeJS.ProcessEnv, file: CoordinatorFileConfig): MailOptions {
  const from = env.GANTRY_MAIL_FROM || file.mail_from || undefined;
  const host = env.GANTRY_SMTP_HOST || file.smtp_host || undefined;
  if (!host) return { from };
  const port = env.GANTRY_SMTP_PORT ? Number(env.GANTRY_SMTP_PORT) : (file.smtp_port ?? 25);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`invalid SMTP port: ${port}`);
  const user = env.GANTRY_SMTP_USER || file.smtp_user || undefined;
  const password = env.GANTRY_SMTP_PASSWORD || file.smtp_password || undefined;
  return { from, smtp: { host, port, user, password, secure: port === 465 } };
}

/** `a, b,c` → ['a', 'b', 'c'] (an empty variable is an empty list). */
function listOf(value: string): string[] {
  return value.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

