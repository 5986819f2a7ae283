/**
 * Several coordinator processes on one database: which installation the database is, which
 * processes are running (each with a heartbeat), and the counters they share.
 */

export interface InstanceRecord {
  id: string;
  hostname: string;
  pid: number;
  version: string;
  started_at: string;
  /** Milliseconds since the epoch, by the database's clock. */
  heartbeat_at_ms: number;
}

export type NewInstance = Omit<InstanceRecord, 'heartbeat_at_ms'>;

export interface InstancesStore {
  /** Records a starting process, its heartbeat at the database's now. */
  register(instance: NewInstance): Promise<void>;
  /** Moves the heartbeat to the database's now; false when the row is gone (another process declared this one dead). */
  heartbeat(id: string): Promise<boolean>;
  /** Processes whose heartbeat is at most `staleAfterMs` old by the database's clock. */
  live(staleAfterMs: number): Promise<InstanceRecord[]>;
  /** Every recorded process, live or not. */
  list(): Promise<InstanceRecord[]>;
  /**
   * Removes the row of a process whose heartbeat is older than `staleAfterMs` (or any, when
   * `staleAfterMs` is null); true for the one caller that removed it, which then cleans up after it.
   */
  removeIfStale(id: string, staleAfterMs: number | null): Promise<boolean>;
  /** A process stopping cleanly removes its own row. */
  remove(id: string): Promise<void>;
  /** Ends the task leases `id` held (their tasks are released by the next sweep of expired leases). */
  expireTaskLeases(id: string): Promise<number>;
  /**
   * Moves a project's pending_delete mark from instance `from` (null: an older version's
   * mark) to `to`; false when the project is not pending under `from` any more (finished, or
   * another coordinator took it over first).
   */
  takeOverPendingProject(projectId: number, from: string | null, to: string): Promise<boolean>;
}

export interface InstallationStore {
  /** The installation id of the database, created at its first start; undefined before. */
  find(): Promise<string | undefined>;
  /** Records `installationId` unless one exists; answers the one recorded. */
  create(installationId: string, now: string): Promise<string>;
}

/** The instance's CI signing key (RSA, PKCS#8 PEM): it signs jobs' ID tokens. */
export interface CiSigningKeyStore {
  /** The key; undefined before the first job that needed one. */
  find(): Promise<string | undefined>;
  /** Records `privateKeyPem` unless a key exists; answers the one recorded. */
  create(privateKeyPem: string, now: string): Promise<string>;
}

/** Fixed-window counters of the request throttles, shared by every coordinator on the database. */
export interface ThrottleCountersStore {
  /**
   * Counts one hit against `key`: a new window of `windowMs` starts when none is open. Answers
   * the hits of the open window and the milliseconds left in it.
   */
  hit(key: string, windowMs: number): Promise<{ hits: number; remainingMs: number }>;
  /** Forgets windows that ended; answers how many. */
  deleteEnded(): Promise<number>;
}
