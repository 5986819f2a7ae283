import type { MailOptions } from '../../coordinator/services/integrations/mail-outbox.ts';
/** What `coordinator serve` and `coordinator start` are started with (flags, GANTRY_* variables, the config file). */
export interface CoordinatorSettings {
  port: number;
  host: string;
  dataDir: string;
  /** postgres://… ; SQLite in the data directory when absent. */
  databaseUrl?: string;
  externalUrl?: string;
  /** root's token when this start creates root (GANTRY_ROOT_TOKEN); random otherwise. */
  rootToken?: string;
  /** Keys of the secrets stored in the database (GANTRY_SECRET_KEYS, secret_keys); see CoordinatorOptions secretKeys. */
  secretKeys?: string[];
  jobRequestLongPollSeconds?: number;
  /** Who may read /-/health, /-/readiness, /-/liveness and /-/metrics (default: loopback). */
  monitoringIpWhitelist?: string[];
  /** Request body limits in bytes; see CoordinatorOptions. */
  bodyLimits?: { bodyLimit?: number; contentBodyLimit?: number; anonymousBodyLimit?: number; uploadBodyLimit?: number };
  /** Bounds of artifacts archives; see CoordinatorOptions ci.archiveMemberLimits. */
  archiveMemberLimits?: { maxMembers?: number; maxDirectoryBytes?: number };
  shutdownGraceMs?: number;
  /** Several coordinators: heartbeat, stale-after and upkeep intervals; see CoordinatorOptions instances. */
  instances?: { heartbeatIntervalMs?: number; staleAfterMs?: number; upkeepIntervalMs?: number };
  /** Integration mail: From address and SMTP server; see CoordinatorOptions mail. */
  mail?: MailOptions;
}
