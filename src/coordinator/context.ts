import type { Logger } from '../shared/logger.ts';
import type { RepositoryManager } from '../storage/git/types.ts';
import type { Db, DialectName } from '../storage/sql/database.ts';
import type { SqlStores } from '../storage/sql/stores/index.ts';
import type { JobQueueSignal } from '../storage/types-queue-signal.ts';
import type { AccountsService } from './services/accounts/accounts.ts';
import type { CoordinatorEvents } from './services/events.ts';
import type { JobTokenVerifier } from './services/repository/git-http/job-tokens.ts';
import type { Lookup } from './services/access/lookup.ts';
import type { Permissions } from './services/access/permissions.ts';
import type { ReadCache } from './services/access/read-cache.ts';
import type { ProtectedBranchesService } from './services/repository/protected-branches.ts';
import type { ProtectedTagsService } from './services/repository/protected-tags.ts';
import type { SettingsService } from './services/instance/settings.ts';
import type { CoordinatorInstance } from './services/instance/instances.ts';

export interface CoordinatorConfig {
  /** Base URL users and runners reach us at, without a trailing slash. */
  externalUrl: string;
  dataDir: string;
}

/**
 * Everything a route plugin may use, built once in createCoordinator and passed explicitly.
 */
export interface CoordinatorContext {
  config: CoordinatorConfig;
  logger: Logger;
  db: Db;
  dialect: DialectName;
  stores: SqlStores;
  permissions: Permissions;
  settings: SettingsService;
  accounts: AccountsService;
  lookup: Lookup;
  /** Bare git repositories, one per project (src/storage/git). */
  repositories: RepositoryManager;
  events: CoordinatorEvents;
  /** CI job tokens (`gitlab-ci-token` over git HTTP); none are valid until CI supplies a verifier. */
  jobTokens: JobTokenVerifier;
  /** Answers of reads, kept while the database has not changed. */
  readCache: ReadCache;
  /** Protected-branch rules (explicit and default-branch setting): who may push and merge. */
  protectedBranches: ProtectedBranchesService;
  /** Protected-tag rules: who may create matching tags; protected tags never move. */
  protectedTags: ProtectedTagsService;
  /** "Jobs became pending" between coordinators on one database (PostgreSQL LISTEN/NOTIFY). */
  jobQueueSignal: JobQueueSignal;
  /**
   * This process among the coordinators of the database: its instance id, heartbeat and
   * `health()` (for a readiness check).
   */
  instance: CoordinatorInstance;
}
