/**
 * GitLab's health probes (`Gitlab::HealthChecks`): each check answers one or more results,
 * grouped under its name; a probe succeeds when every check has a successful result.
 *
 * - liveness runs no check: answering at all is the proof of life;
 * - readiness runs the instance checks, and with `all` the service checks too (database,
 *   data directory, git), as GitLab's `/-/readiness?all=1` adds the database, Redis and Gitaly.
 *
 * A check is bounded twice: its caller waits at most `timeoutMs` (then the check failed with
 * "<Name> check timed out", and its signal aborts), and while a run of a check is still in
 * flight every probe shares it instead of starting another. A hung network file system or
 * database thus holds at most one operation of each kind, however often probes arrive.
 */
import { errorSummary } from '../../../shared/errors.ts';

export interface CheckResult {
  success: boolean;
  message?: string;
  labels?: Readonly<Record<string, string>>;
}

export interface HealthCheck {
  /** `db_check`, `data_directory_check`, ...: the key of its results in the answer. */
  name: string;
  /** Its name in messages: `Db` gives "Db check timed out". */
  humanName: string;
  timeoutMs: number;
  run(signal: AbortSignal): Promise<CheckResult[]>;
}

export interface ProbeReport {
  success: boolean;
  /** Results by check name, in the order the checks are listed. */
  results: ReadonlyArray<{ name: string; results: readonly CheckResult[] }>;
}

export class HealthChecks {
  private readonly inFlight = new Map<string, { done: Promise<CheckResult[]>; controller: AbortController }>();

  constructor(private readonly checks: { instance: readonly HealthCheck[]; services: readonly HealthCheck[] }) {}

  async liveness(): Promise<ProbeReport> {
    return this.probe([]);
  }

  async readiness(all: boolean): Promise<ProbeReport> {
    return this.probe(all ? [...this.checks.instance, ...this.checks.services] : this.checks.instance);
  }

  private async probe(checks: readonly HealthCheck[]): Promise<ProbeReport> {
    const results = await Promise.all(checks.map(async (check) => ({ name: check.name, results: await this.runBounded(check) })));
    return { success: results.every((entry) => entry.results.some((result) => result.success)), results };
  }

  private async runBounded(check: HealthCheck): Promise<CheckResult[]> {
    let run = this.inFlight.get(check.name);
    if (!run) {
      const controller = new AbortController();
      const done = check.run(controller.signal).catch((error: unknown) => [{ success: false, message: `${check.humanName} check failed: ${errorSummary(error)}` }]);
      const started = { done, controller };
      run = started;
      this.inFlight.set(check.name, started);
      void done.finally(() => {
        if (this.inFlight.get(check.name) === started) this.inFlight.delete(check.name);
      });
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed out'>((resolve) => {
      timer = setTimeout(() => resolve('timed out'), check.timeoutMs);
    });
    const outcome = await Promise.race([run.done, timedOut]);
    clearTimeout(timer);
    if (outcome !== 'timed out') return outcome;
    run.controller.abort(new Error(`${check.humanName} check timed out`));
    return [{ success: false, message: `${check.humanName} check timed out` }];
  }
}
