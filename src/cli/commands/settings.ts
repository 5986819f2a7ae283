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
  jobRequestLongPollSeconds?: number;
  /** Request body limits in bytes; see CoordinatorOptions. */
  bodyLimits?: { bodyLimit?: number; contentBodyLimit?: number; anonymousBodyLimit?: number; uploadBodyLimit?: number };
  /** Bounds of artifacts archives; see CoordinatorOptions ci.archiveMemberLimits. */
  archiveMemberLimits?: { maxMembers?: number; maxDirectoryBytes?: number };
  shutdownGraceMs?: number;
}
