import { GantryError } from '../../../../shared/errors.ts';
import type { NewRunner, RegistrationTokensStore, RunnerInfo, RunnerRecord, RunnersStore, RunnerType } from '../../../../storage/types-runners.ts';
import { checkRunner, runnerChangesOf, type RunnerSettingsInput } from './rules.ts';
import { newRunnerToken, type InstanceRegistrationToken } from './tokens.ts';

/** What a runner reports about itself (`info` of the protocol's bodies) and where it called from. */
export interface RunnerReport {
  info?: Pick<RunnerInfo, 'name' | 'version' | 'revision' | 'platform' | 'architecture' | 'executor'>;
  ipAddress: string;
}

export interface RegisterRunnerInput extends RunnerSettingsInput, RunnerReport {
  /** A registration token: the instance's, a group's or a project's. */
  token: string;
}

export interface RunnerRegistrationDeps {
  runners: Pick<RunnersStore, 'create' | 'findByToken' | 'heartbeat' | 'delete'>;
  registrationTokens: Pick<RegistrationTokensStore, 'projectIdByRunnersToken' | 'groupIdByRunnersToken'>;
  instanceToken: Pick<InstanceRegistrationToken, 'matches'>;
}

/** Whom a registration token registers a runner for. */
type Owner = { type: 'instance_type' } | { type: 'project_type'; projectId: number } | { type: 'group_type'; namespaceId: number };

/**
 * The runner side of registration (reference/runner-protocol.md §2): `POST /runners` with a
 * registration token, `POST /runners/verify` and `DELETE /runners` with the runner's own
 * token. Unknown tokens are refused with 403 (`forbidden!`), whatever else the body says.
 */
export class RunnerRegistration {
  constructor(private readonly deps: RunnerRegistrationDeps) {}

  /** A new runner and its token (shown this once; only its digest is kept). */
  async register(input: RegisterRunnerInput): Promise<{ runner: RunnerRecord; token: string }> {
    const owner = await this.ownerOf(input.token);
    if (!owner) throw new GantryError('GANTRY_E_RUNNER_TOKEN_INVALID');
    const now = new Date().toISOString();
    const runner: NewRunner = {
      runner_type: owner.type satisfies RunnerType,
      created_at: now,
      ...runnerChangesOf(input),
      ...reported(input),
    };
    checkRunner({ tag_list: runner.tag_list ?? [], run_untagged: runner.run_untagged ?? true, maximum_timeout: runner.maximum_timeout ?? null });
    const token = newRunnerToken();
    const owners = owner.type === 'project_type' ? { projectIds: [owner.projectId] } : owner.type === 'group_type' ? { namespaceId: owner.namespaceId } : {};
    return { runner: await this.deps.runners.create(runner, token, owners), token };
  }

  /** `POST /runners/verify`: the runner exists (and is heard from now); 403 otherwise. */
  async verify(token: string, report: RunnerReport): Promise<RunnerRecord> {
    return this.authenticate(token, report);
  }

  /** `DELETE /runners`: the runner removes itself. */
  async unregister(token: string, report: RunnerReport): Promise<void> {
    const runner = await this.authenticate(token, report);
    await this.deps.runners.delete(runner.id);
  }

  /** GitLab's `authenticate_runner!`: 403 for an unknown token, else a heartbeat with what the runner reported. */
  async authenticate(token: string, report: RunnerReport): Promise<RunnerRecord> {
    const runner = token === '' ? undefined : await this.deps.runners.findByToken(token);
    if (!runner) throw new GantryError('GANTRY_E_RUNNER_TOKEN_INVALID');
    await this.deps.runners.heartbeat(runner.id, reported(report), new Date().toISOString());
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
