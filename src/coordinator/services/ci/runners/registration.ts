import { GantryError } from '../../../../shared/errors.ts';
import type {
  NewRunner, RegistrationTokensStore, RunnerInfo, RunnerManagersStore, RunnerRecord, RunnersStore, RunnerType,
} from '../../../../storage/types-runners.ts';
import type { ManagerReport, RunnerManagerHeartbeats, RunnerReport } from './manager-heartbeats.ts';
import { checkRunner, runnerChangesOf, type RunnerSettingsInput } from './rules.ts';
import { isTokenExpired, tokenExpiresAt, type TokenExpirySettings } from './token-expiry.ts';
import { newAuthenticationToken, newRunnerToken, type InstanceRegistrationToken } from './tokens.ts';

export type { RunnerReport } from './manager-heartbeats.ts';

export interface RegisterRunnerInput extends RunnerSettingsInput, RunnerReport {
  /** A registration token: the instance's, a group's or a project's. */
  token: string;
}

/** A runner token as the protocol shows it: the token and when it expires (null: never). */
export interface RunnerTokenView {
  runner: RunnerRecord;
  token: string;
  tokenExpiresAt: string | null;
}

export interface RunnerRegistrationDeps {
  runners: Pick<RunnersStore, 'create' | 'findByToken' | 'heartbeat' | 'delete' | 'resetToken'>;
  managers: Pick<RunnerManagersStore, 'find' | 'delete'>;
  heartbeats: Pick<RunnerManagerHeartbeats, 'heartbeat' | 'forget'>;
  registrationTokens: Pick<RegistrationTokensStore, 'projectIdByRunnersToken' | 'groupIdByRunnersToken'>;
  instanceToken: Pick<InstanceRegistrationToken, 'matches'>;
  settings: { values(): Promise<TokenExpirySettings> };
  clock?: () => number;
}

/** Whom a registration token registers a runner for. */
type Owner = { type: 'instance_type' } | { type: 'project_type'; projectId: number } | { type: 'group_type'; namespaceId: number };

/**
 * The runner side of registration (reference/runner-protocol.md §2): `POST /runners` with a
 * registration token; `POST /runners/verify`, `POST /runners/reset_authentication_token`,
 * `DELETE /runners` and `DELETE /runners/managers` with the runner's own token. Unknown and
 * expired tokens are refused with 403 (`forbidden!`), whatever else the body says.
 */
export class RunnerRegistration {
  private readonly clock: () => number;

  constructor(private readonly deps: RunnerRegistrationDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** A new runner and its token (shown this once; only its digest is kept). */
  async register(input: RegisterRunnerInput): Promise<RunnerTokenView> {
    const owner = await this.ownerOf(input.token);
    if (!owner) throw new GantryError('GANTRY_E_RUNNER_TOKEN_INVALID');
    const nowMs = this.clock();
    const runner: NewRunner = {
      runner_type: owner.type satisfies RunnerType,
      created_at: new Date(nowMs).toISOString(),
      token_expires_at: tokenExpiresAt(owner.type, await this.deps.settings.values(), nowMs),
      ...runnerChangesOf(input),
      ...reported(input),
    };
    checkRunner({ tag_list: runner.tag_list ?? [], run_untagged: runner.run_untagged ?? true, maximum_timeout: runner.maximum_timeout ?? null, maintenance_note: runner.maintenance_note });
    const token = newRunnerToken();
    const owners = owner.type === 'project_type' ? { projectIds: [owner.projectId] } : owner.type === 'group_type' ? { namespaceId: owner.namespaceId } : {};
    const created = await this.deps.runners.create(runner, token, owners);
    return { runner: created, token, tokenExpiresAt: created.token_expires_at };
  }

  /**
   * `POST /runners/verify`: the runner exists; its host's manager (`system_id`) is created or
   * refreshed. Answers the token as `register --token glrt-…` stores it, with its expiry.
   */
  async verify(token: string, report: ManagerReport): Promise<RunnerTokenView> {
    const runner = await this.authenticate(token, report, { force: true });
    return { runner, token, tokenExpiresAt: runner.token_expires_at };
  }

  /** `DELETE /runners`: the runner removes itself (and its managers). */
  async unregister(token: string, report: RunnerReport): Promise<void> {
    const runner = await this.authenticate(token, report, { manager: false });
    await this.deps.runners.delete(runner.id);
    this.deps.heartbeats.forget(runner.id);
  }

  /** `DELETE /runners/managers`: one host stops using the runner's token (404 for a system id it never used). */
  async unregisterManager(token: string, systemId: string, report: RunnerReport): Promise<void> {
    const runner = await this.authenticate(token, report, { manager: false });
    if (!(await this.deps.managers.delete(runner.id, systemId))) throw new GantryError('GANTRY_E_RUNNER_MANAGER_NOT_FOUND');
    this.deps.heartbeats.forget(runner.id, systemId);
  }

  /**
   * `POST /runners/reset_authentication_token`: a new token for the runner, its expiry counted
   * from now; the old token stops working at once (GitLab's `ResetAuthenticationTokenService`).
   */
  async resetAuthenticationToken(token: string, report: ManagerReport): Promise<RunnerTokenView> {
    // As GitLab's `authenticate_runner!(ensure_runner_manager: false)`: the request carries no system id, so no manager is made.
    const runner = await this.authenticate(token, report, { manager: false });
    return this.rotate(runner);
  }

  /** A new token for `runner` (its old token stops working), expiring as the settings say. */
  async rotate(runner: RunnerRecord): Promise<RunnerTokenView> {
    const nowMs = this.clock();
    const next = runner.registration_type === 'authenticated_user' ? newAuthenticationToken() : newRunnerToken();
    const expiresAt = tokenExpiresAt(runner.runner_type, await this.deps.settings.values(), nowMs);
    const updated = await this.deps.runners.resetToken(runner.id, next, new Date(nowMs).toISOString(), expiresAt);
    if (!updated) throw new GantryError('GANTRY_E_RUNNER_NOT_FOUND');
    return { runner: updated, token: next, tokenExpiresAt: updated.token_expires_at };
  }

  /**
   * GitLab's `authenticate_runner!`: 403 for an unknown or expired token, else a heartbeat with
   * what the runner reported and (unless `manager` is false) of its host's manager.
   */
  async authenticate(token: string, report: ManagerReport, options: { manager?: boolean; force?: boolean } = {}): Promise<RunnerRecord> {
    const runner = token === '' ? undefined : await this.deps.runners.findByToken(token);
    const nowMs = this.clock();
    if (!runner || isTokenExpired(runner, nowMs)) throw new GantryError('GANTRY_E_RUNNER_TOKEN_INVALID');
    await this.deps.runners.heartbeat(runner.id, reported(report), new Date(nowMs).toISOString());
    if (options.manager !== false) await this.deps.heartbeats.heartbeat(runner.id, report, options.force === true);
    return runner;
  }

  private async ownerOf(token: string): Promise<Owner | undefined> {
    if (token === '') return undefined;
    if (await this.deps.instanceToken.matches(token)) return { type: 'instance_type' };
    const projectId = await this.deps.registrationTokens.projectIdByRunnersToken(token);
    if (projectId !== undefined) return { type: 'project_type', projectId };
    const namespaceId = await this.deps.registrationTokens.groupIdByRunnersToken(token);
    if (namespaceId !== undefined) return { type: 'group_type', namespaceId };
    return undefined;
  }
}

/** The runner's report as record fields: what it said about itself (blank values left out) and its address. */
export function reported(report: RunnerReport): RunnerInfo {
  const fields: RunnerInfo = { ip_address: report.ipAddress };
  for (const key of ['name', 'version', 'revision', 'platform', 'architecture', 'executor'] as const) {
    const value = report.info?.[key];
    if (value !== undefined && value !== '') fields[key] = value;
  }
  return fields;
}
