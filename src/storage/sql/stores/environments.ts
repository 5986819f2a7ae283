import type { EnvironmentTier } from '../../../ci/environment-tier.ts';
import { countAll, inTransaction, type Db } from '../database.ts';
import { preparedQuery } from '../prepared.ts';
import type { Page } from '../../types-ci.ts';
import type {
  DeploymentRecord, DeploymentStatus, DeploymentsStore, EnvironmentChanges, EnvironmentRecord, EnvironmentState, EnvironmentsStore,
  ForwardDeploymentSettings, NewDeployment, NewEnvironment,
} from '../../types-environments.ts';
import { nextInternalId } from './internal-ids.ts';
import { containsInsensitive } from './like.ts';

/** Commit ids per link query: two IN lists of this size stay far below SQLite's bound parameters. */
const COMMITS_PER_QUERY = 1000;

const toEnvironment = (row: Omit<EnvironmentRecord, 'state' | 'tier'> & { state: string; tier: string }): EnvironmentRecord => ({
  ...row,
  state: row.state as EnvironmentState,
  tier: row.tier as EnvironmentTier,
});
const toDeployment = (row: Omit<DeploymentRecord, 'status' | 'tag'> & { status: string; tag: number }): DeploymentRecord => ({
  ...row,
  tag: row.tag === 1,
  status: row.status as DeploymentStatus,
});

export class SqlEnvironmentsStore implements EnvironmentsStore {
  constructor(private readonly db: Db) {}

  async create(environment: NewEnvironment): Promise<EnvironmentRecord> {
    return toEnvironment(await this.db.insertInto('environments').values(environment).returningAll().executeTakeFirstOrThrow());
  }

  async findOrCreate(environment: NewEnvironment): Promise<EnvironmentRecord | undefined> {
    await this.db.insertInto('environments').values(environment).onConflict((conflict) => conflict.doNothing()).execute();
    return this.findByName(environment.project_id, environment.name);
  }

  async findInProject(projectId: number, id: number): Promise<EnvironmentRecord | undefined> {
    const row = await this.db.selectFrom('environments').selectAll().where('id', '=', id).where('project_id', '=', projectId).executeTakeFirst();
    return row && toEnvironment(row);
  }

  async findByName(projectId: number, name: string): Promise<EnvironmentRecord | undefined> {
    const row = await this.db.selectFrom('environments').selectAll().where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();
    return row && toEnvironment(row);
  }

  async listCreatedByMergeRequest(projectId: number, mergeRequestId: number): Promise<EnvironmentRecord[]> {
    const rows = await this.db.selectFrom('environments').selectAll().where('merge_request_id', '=', mergeRequestId).where('project_id', '=', projectId).orderBy('id').execute();
    return rows.map(toEnvironment);
  }

  async list(projectId: number, filter: { name?: string; search?: string; states?: readonly EnvironmentState[] }, page: Page): Promise<{ items: EnvironmentRecord[]; total: number }> {
    let query = this.db.selectFrom('environments').where('project_id', '=', projectId);
    if (filter.name !== undefined) query = query.where('name', '=', filter.name);
    if (filter.search !== undefined) query = query.where(containsInsensitive(this.db, 'name', filter.search));
    if (filter.states !== undefined) {
      if (filter.states.length === 0) return { items: [], total: 0 };
      query = query.where('state', 'in', [...filter.states]);
    }
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query.selectAll().orderBy('id').offset(page.offset).limit(page.limit).execute();
    return { items: rows.map(toEnvironment), total: Number(counted.total) };
  }

  async update(id: number, changes: EnvironmentChanges): Promise<EnvironmentRecord | undefined> {
    const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    if (Object.keys(set).length === 0) {
      const current = await this.db.selectFrom('environments').selectAll().where('id', '=', id).executeTakeFirst();
      return current && toEnvironment(current);
    }
    const row = await this.db.updateTable('environments').set(set).where('id', '=', id).returningAll().executeTakeFirst();
    return row && toEnvironment(row);
  }

  async listAutoStopDue(now: string, limit: number): Promise<EnvironmentRecord[]> {
    const rows = await this.db
      .selectFrom('environments')
      .selectAll()
      .where('state', '=', 'available')
      .where('auto_stop_at', 'is not', null)
      .where('auto_stop_at', '<=', now)
      .orderBy('auto_stop_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toEnvironment);
  }

  async stopIfDue(id: number, now: string): Promise<EnvironmentRecord | undefined> {
    const row = await this.db
      .updateTable('environments')
      .set({ state: 'stopped', auto_stop_at: null, updated_at: now })
      .where('id', '=', id)
      .where('state', '=', 'available')
      .where('auto_stop_at', 'is not', null)
      .where('auto_stop_at', '<=', now)
      .returningAll()
      .executeTakeFirst();
    return row && toEnvironment(row);
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('environments').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

export class SqlDeploymentsStore implements DeploymentsStore {
  // Every processing pass of a pipeline reads its deployments.
  private readonly ofPipeline;

  constructor(private readonly db: Db) {
    this.ofPipeline = preparedQuery(db, (pipelineId: number) =>
      db.selectFrom('deployments').innerJoin('ci_jobs', 'ci_jobs.id', 'deployments.job_id').selectAll('deployments').where('ci_jobs.pipeline_id', '=', pipelineId).orderBy('deployments.id').compile());
  }

  async create(deployment: NewDeployment): Promise<DeploymentRecord> {
    return inTransaction(this.db, async (trx) => {
      const iid = await nextInternalId(trx, deployment.project_id, 'deployments');
      const row = await trx
        .insertInto('deployments')
        .values({ ...deployment, iid, tag: deployment.tag ? 1 : 0 })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toDeployment(row);
    });
  }

  async findById(id: number): Promise<DeploymentRecord | undefined> {
    const row = await this.db.selectFrom('deployments').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toDeployment(row);
  }

  async latestForProject(projectId: number): Promise<DeploymentRecord | undefined> {
    const row = await this.db.selectFrom('deployments').selectAll().where('project_id', '=', projectId).orderBy('id', 'desc').limit(1).executeTakeFirst();
    return row && toDeployment(row);
  }

  async findByJob(jobId: number): Promise<DeploymentRecord | undefined> {
    const row = await this.db.selectFrom('deployments').selectAll().where('job_id', '=', jobId).orderBy('id', 'desc').limit(1).executeTakeFirst();
    return row && toDeployment(row);
  }

  async update(id: number, changes: Partial<Pick<DeploymentRecord, 'status' | 'updated_at' | 'finished_at'>>): Promise<DeploymentRecord | undefined> {
    const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    if (Object.keys(set).length === 0) return this.findById(id);
    const row = await this.db.updateTable('deployments').set(set).where('id', '=', id).returningAll().executeTakeFirst();
    return row && toDeployment(row);
  }

  async listForPipeline(pipelineId: number): Promise<DeploymentRecord[]> {
    const rows = await this.ofPipeline(pipelineId);
    return rows.map(toDeployment);
  }

  async listForEnvironment(environmentId: number, page: Page): Promise<{ items: DeploymentRecord[]; total: number }> {
    const query = this.db.selectFrom('deployments').where('environment_id', '=', environmentId);
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query.selectAll().orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute();
    return { items: rows.map(toDeployment), total: Number(counted.total) };
  }

  async lastSuccessful(environmentIds: readonly number[]): Promise<Map<number, DeploymentRecord>> {
    const latest = new Map<number, DeploymentRecord>();
    if (environmentIds.length === 0) return latest;
    const newestIds = this.db
      .selectFrom('deployments')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('environment_id', 'in', [...new Set(environmentIds)])
      .where('status', '=', 'success')
      .groupBy('environment_id');
    const rows = await this.db.selectFrom('deployments').selectAll().where('id', 'in', newestIds).execute();
    for (const row of rows) latest.set(row.environment_id, toDeployment(row));
    return latest;
  }

  async listActive(environmentIds: readonly number[]): Promise<DeploymentRecord[]> {
    if (environmentIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('deployments')
      .selectAll()
      .where('environment_id', 'in', [...new Set(environmentIds)])
      .where('status', 'in', ['created', 'running'])
      .orderBy('id')
      .execute();
    return rows.map(toDeployment);
  }

  async forwardDeploymentSettings(projectId: number): Promise<ForwardDeploymentSettings> {
    const row = await this.db
      .selectFrom('projects')
      .select(['ci_forward_deployment_enabled', 'ci_forward_deployment_rollback_allowed'])
      .where('id', '=', projectId)
      .executeTakeFirst();
    return { enabled: row ? row.ci_forward_deployment_enabled !== 0 : true, rollbackAllowed: row ? row.ci_forward_deployment_rollback_allowed !== 0 : true };
  }

  async previousSuccessful(deployment: Pick<DeploymentRecord, 'id' | 'environment_id'>): Promise<DeploymentRecord | undefined> {
    const row = await this.db
      .selectFrom('deployments')
      .selectAll()
      .where('environment_id', '=', deployment.environment_id)
      .where('status', '=', 'success')
      .where('id', '<', deployment.id)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toDeployment(row);
  }

  async linkMergedRequests(deployment: Pick<DeploymentRecord, 'id' | 'project_id' | 'environment_id'>, commitIds: readonly string[], targetBranch?: string): Promise<number> {
    let linked = 0;
    const ids = [...new Set(commitIds)];
    for (let start = 0; start < ids.length; start += COMMITS_PER_QUERY) {
      const slice = ids.slice(start, start + COMMITS_PER_QUERY);
      let merged = this.db
        .selectFrom('merge_requests')
        .select((eb) => [eb.val(deployment.id).as('deployment_id'), 'id as merge_request_id', eb.val(deployment.environment_id).as('environment_id')])
        .where('project_id', '=', deployment.project_id)
        .where('state', '=', 'merged')
        .where((eb) => eb.or([eb('merge_commit_sha', 'in', slice), eb('squash_commit_sha', 'in', slice)]));
      if (targetBranch !== undefined) merged = merged.where('target_branch', '=', targetBranch);
      const result = await this.db
        .insertInto('deployment_merge_requests')
        .columns(['deployment_id', 'merge_request_id', 'environment_id'])
        .expression(merged)
        .onConflict((conflict) => conflict.columns(['deployment_id', 'merge_request_id']).doNothing())
        .executeTakeFirst();
      linked += Number(result.numInsertedOrUpdatedRows ?? 0);
    }
    return linked;
  }

  async linkedMergeRequestIds(deploymentId: number): Promise<number[]> {
    const rows = await this.db.selectFrom('deployment_merge_requests').select('merge_request_id').where('deployment_id', '=', deploymentId).orderBy('merge_request_id').execute();
    return rows.map((row) => row.merge_request_id);
  }
}
