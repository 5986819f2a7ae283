import type { RunnerInfo, RunnerManagerRecord, RunnerManagerReport, RunnerManagersStore } from '../../../../storage/types-runners.ts';

/** What a runner reports about itself (`info` of the protocol's bodies) and where it called from. */
export interface RunnerReport {
  info?: Pick<RunnerInfo, 'name' | 'version' | 'revision' | 'platform' | 'architecture' | 'executor'>;
  ipAddress: string;
}

/** GitLab's `LEGACY_SYSTEM_XID`: the manager of runners that send no `system_id` (before 16.0). */
export const LEGACY_SYSTEM_ID = '<legacy>';

/** contacted_at is written at most this often (what the host reports is written whenever it changes). */
export const CONTACT_WRITE_INTERVAL_MS = 60_000;

/** Managers whose last write a coordinator remembers; past it the oldest is forgotten (and simply written again). */
const REMEMBERED = 10_000;

export interface ManagerReport extends RunnerReport {
  /** The host's `system_id`; absent for runners older than 16.0. */
  systemId?: string;
  features?: Readonly<Record<string, boolean>>;
}

/**
 * GitLab's `authenticate_runner!` heartbeat: the runner's contact time and what it reports,
 * and the manager of its host (`ensure_manager(system_id)`), created on first contact. Job
 * requests come every few seconds per host, so a manager row is written only when what the
 * host reports changed or a minute passed since this coordinator last wrote it.
 */
export class RunnerManagerHeartbeats {
  private readonly written = new Map<string, { atMs: number; fingerprint: string }>();

  constructor(
    private readonly deps: { managers: Pick<RunnerManagersStore, 'record'> },
    private readonly clock: () => number = Date.now,
  ) {}

  /** Records the contact; `force` writes whatever was written last (verify, registration). */
  async heartbeat(runnerId: number, report: ManagerReport, force = false): Promise<void> {
    const systemId = report.systemId !== undefined && report.systemId !== '' ? report.systemId : LEGACY_SYSTEM_ID;
    const fields = managerFields(report);
    const key = `${runnerId}\0${systemId}`;
    const fingerprint = JSON.stringify(fields);
    const nowMs = this.clock();
    const last = this.written.get(key);
    if (!force && last && last.fingerprint === fingerprint && nowMs - last.atMs < CONTACT_WRITE_INTERVAL_MS) return;
    const now = new Date(nowMs).toISOString();
    await this.deps.managers.record(runnerId, systemId, fields, now);
    this.written.delete(key);
    this.written.set(key, { atMs: nowMs, fingerprint });
    if (this.written.size > REMEMBERED) this.written.delete(this.written.keys().next().value as string);
  }

  /** Forgets what was written for the runner's managers (they were deleted). */
  forget(runnerId: number, systemId?: string): void {
    for (const key of [...this.written.keys()]) {
      const [runner, system] = key.split('\0');
      if (Number(runner) === runnerId && (systemId === undefined || system === systemId)) this.written.delete(key);
    }
  }
}

/** The manager columns a report sets (blank values left out, features only when announced). */
function managerFields(report: ManagerReport): RunnerManagerReport {
  const fields: RunnerManagerReport = { ip_address: report.ipAddress };
  for (const key of ['name', 'version', 'revision', 'platform', 'architecture', 'executor'] as const) {
    const value = report.info?.[key];
    if (value !== undefined && value !== '') fields[key] = value;
  }
  if (report.features !== undefined) {
    fields.features = Object.fromEntries(
      Object.entries(report.features)
        .filter(([, value]) => value === true)
        .slice(0, 64)
        .sort(([a], [b]) => a.localeCompare(b)),
    );
  }
  return fields;
}

/** GitLab's `Ci::RunnerManager#status`: stale after a week without contact, else by its last contact. */
export type RunnerManagerStatus = 'online' | 'offline' | 'stale' | 'never_contacted';

const STALE_AFTER_MS = 7 * 24 * 60 * 60 * 1000;
const ONLINE_WITHIN_MS = 2 * 60 * 60 * 1000;

export function runnerManagerStatus(manager: Pick<RunnerManagerRecord, 'created_at' | 'contacted_at'>, nowMs: number): RunnerManagerStatus {
  const contacted = manager.contacted_at === null ? null : Date.parse(manager.contacted_at);
  const stale = Date.parse(manager.created_at) < nowMs - STALE_AFTER_MS && (contacted === null || contacted < nowMs - STALE_AFTER_MS);
  if (stale) return 'stale';
  if (contacted === null) return 'never_contacted';
  return contacted > nowMs - ONLINE_WITHIN_MS ? 'online' : 'offline';
}
