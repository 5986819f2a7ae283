import type { Logger } from '../shared/logger.ts';
import type { RepositoryManagerOptions } from '../storage/git/index.ts';
import type { StatementObserver } from '../storage/sql/database.ts';
import type { JobTokenVerifier } from './services/repository/git-http/job-tokens.ts';
import type { InstanceTiming } from './services/instance/instances.ts';
import type { CiRuntimeOptions } from './wiring-ci.ts';
import type { MailOptions } from './services/integrations/mail-outbox.ts';

/** What closing gives requests in flight unless CoordinatorOptions.shutdownGraceMs says otherwise. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

/** How to run a coordinator, standalone (`createCoordinator`) or mounted in a host (`gantryPlugin`). */
export interface CoordinatorOptions {
  /** Data directory: SQLite file, repositories, artifacts. Default ./data. */
  dataDir?: string;
  /** `postgres://...`, a SQLite file path, or `:memory:`. Default: `<dataDir>/gantry.sqlite3`. */
  databaseUrl?: string;
  /** With `databaseUrl: ':memory:'`: the database starts as this serialized SQLite database (a schema image, storage/sql/schema-image.ts) instead of empty. */
  sqliteImage?: Buffer;
  /** Base URL clients reach us at (with a host's mount prefix, if any). Default http://localhost:8080. */
  externalUrl?: string;
  /** Default: silent for createCoordinator, the host's logger for the plugin. */
  logger?: Logger;
  /** Token to give root on first start (GANTRY_ROOT_TOKEN); random when absent. */
  rootToken?: string;
  /**
   * Keys of the secrets stored in the database (CI variable values, webhook URLs and tokens,
   * integration settings), each 32 bytes as 64 hex digits or base64: the key to seal with
   * first, then older keys still able to open what they sealed. Every coordinator of one
   * database needs the same. Default: `<dataDir>/secret.key`, written on the first start
   * (a random key kept nowhere with `databaseUrl: ':memory:'`). docs/security.md: Secrets at rest.
   */
  secretKeys?: readonly string[];
  /** Largest JSON, urlencoded or text body of the API, in bytes (413 past it). Default 1 MiB. */
  bodyLimit?: number;
  /** Largest body of commit creation and repository file writes (contents travel in JSON). Default 64 MiB. */
  contentBodyLimit?: number;
  /** Largest body read from a caller with no credential in its headers or query (401 past it). Default 64 KiB. */
  anonymousBodyLimit?: number;
  /** Largest file of a multipart upload (streamed to disk). Default 1 GiB. */
  uploadBodyLimit?: number;
  /** Largest generic package file (streamed to disk; 400 `File is too large` past it). Default 5 GiB, as GitLab's generic_packages_max_file_size. */
  packageFileLimit?: number;
  /** Checks CI job tokens for git over HTTP (`gitlab-ci-token`); by default those of running jobs (their own project only). */
  jobTokenVerifier?: JobTokenVerifier;
  /** Keep answers of frequent reads until the database changes (SQLite only). Default true. */
  cacheReads?: boolean;
  /** Told the SQL text of every statement the coordinator runs (benches count them). */
  onStatement?: StatementObserver;
  /** Heavy git work: queue slots and bounds, the blame size limit (README: Git storage). */
  git?: Pick<RepositoryManagerOptions, 'work' | 'blameMaxBytes'>;
  /** CI background work: the task worker's poll interval, how often schedules are looked for. */
  ci?: CiRuntimeOptions;
  /**
   * Mail of the emails-on-push and pipelines-email integrations: the From address, and an SMTP
   * server to deliver through (default: a maildir under `<dataDir>/mail`).
   */
  mail?: MailOptions;
  /** `POST /jobs/request`: how long an idle request is held, in seconds (default 50; 0: no long polling; at most 540). */
  jobRequestLongPollSeconds?: number;
  /**
   * Several coordinators: how often this one's heartbeat is written, when a silent one counts
   * as dead, and how often dead ones are looked for (default 5 s, 30 s and half of that; whole
   * milliseconds, stale-after at least two heartbeats). `coordinator serve`: the `instance_*_ms` keys.
   */
  instances?: InstanceTiming;
  /** How long application settings may be answered from memory (default 1 s; other coordinators' changes are announced at once on PostgreSQL). */
  settingsMaxAgeMs?: number;
  /**
   * Closing stops long work at once (archive walks, git, uploads, streamed answers) and gives
   * the other requests in flight this long to answer before their connections are closed.
   * Default 5,000 ms.
   */
  shutdownGraceMs?: number;
  /**
   * Addresses and CIDR ranges that may read /-/health, /-/readiness, /-/liveness and /-/metrics
   * (GitLab's `monitoring.ip_whitelist`). Default: loopback, `127.0.0.0/8` and `::1/128`.
   */
  monitoringIpWhitelist?: readonly string[];
  /**
   * The API mounted under /api/v4 by createCoordinator: `all` (default), or `local-run`, what
   * an in-process runner and its caller need (`runner exec`): the runner protocol, job traces
   * and artifacts, creating projects and their CI variables (api/local-run.ts). Git over HTTP
   * and the monitoring endpoints are mounted either way; the modules of the other API areas
   * are not loaded. `gantryPlugin` mounts everything.
   */
  routes?: CoordinatorRoutes;
}

export type CoordinatorRoutes = 'all' | 'local-run';
