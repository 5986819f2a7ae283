import { sql } from '#deps/kysely';
import { countAll, dialectOf, inTransaction, type Db } from '../database.ts';
import type { Page } from '../../types-ci.ts';
import type { NewRunner, RunnerChanges, RunnerInfo, RunnerListFilter, RunnerRecord, RunnersStore } from '../../types-runners.ts';
import { preparedQuery } from '../prepared.ts';
import { normalizeTags } from './ci-job-rows.ts';
import { ColumnKinds } from './row-mapping.ts';
import { digestToken } from './tokens.ts';

const RUNNER_KINDS = new ColumnKinds<RunnerRecord>({ active: 'boolean', locked: 'boolean', run_untagged: 'boolean', tag_list: 'json' });

const SELECT = [
  'id', 'runner_type', 'token_prefix', 'description', 'active', 'locked', 'run_untagged', 'tag_list', 'access_level', 'maximum_timeout',
  'name', 'version', 'revision', 'platform', 'architecture', 'executor', 'ip_address', 'contacted_at', 'created_at', 'updated_at',
  'maintenance_note', 'token_expires_at', 'registration_type',
] as const;

const toRunner = (row: object) => RUNNER_KINDS.toRecord(row);

/** The columns of a runner's fields, its tags normalised. */
function toColumns<P extends Partial<RunnerRecord>>(record: P) {
  return RUNNER_KINDS.toColumns(record.tag_list === undefined ? record : { ...record, tag_list: normalizeTags(record.tag_list) });
}

/**
 * GitLab's short token, which names the runner without revealing the token: the first 8
 * characters, or for a `glrt-` authentication token the 9 after its prefix (`short_sha`).
 */
const tokenPrefix = (token: string) => (token.startsWith('glrt-') ? token.slice(5, 14) : token.slice(0, 8));

export class SqlRunnersStore implements RunnersStore {
  /** The job request's hot read (runners ask every few seconds): compiled once. */
  private readonly byTokenDigest: (digest: string) => Promise<object[]>;

  constructor(private readonly db: Db) {
    this.byTokenDigest = preparedQuery(db, (digest: string) => db.selectFrom('ci_runners').select(SELECT).where('token_digest', '=', digest).compile());
  }

  async create(runner: NewRunner, token: string, owners: { projectIds?: readonly number[]; namespaceId?: number } = {}): Promise<RunnerRecord> {
    const row = toColumns({
      description: '', active: true, locked: false, run_untagged: true, tag_list: [], access_level: 'not_protected', maximum_timeout: null,
      name: null, version: null, revision: null, platform: null, architecture: null, executor: null, ip_address: null, contacted_at: null,
      maintenance_note: '', token_expires_at: null, registration_type: 'registration_token', updated_at: runner.created_at, ...runner,
    });
    return inTransaction(this.db, async (trx) => {
      const inserted = await trx
        .insertInto('ci_runners')
        .values({ ...row, token_digest: digestToken(token), token_prefix: tokenPrefix(token) })
        .returning(SELECT)
        .executeTakeFirstOrThrow();
      const projectIds = [...new Set(owners.projectIds ?? [])];
      if (projectIds.length > 0) {
        await trx
          .insertInto('ci_runner_projects')
          .values(projectIds.map((projectId) => ({ runner_id: inserted.id, project_id: projectId, created_at: runner.created_at })))
          .execute();
      }
      if (owners.namespaceId !== undefined) {
        await trx.insertInto('ci_runner_namespaces').values({ runner_id: inserted.id, namespace_id: owners.namespaceId }).execute();
      }
      return toRunner(inserted);
    });
  }

  async findById(id: number): Promise<RunnerRecord | undefined> {
    const row = await this.db.selectFrom('ci_runners').select(SELECT).where('id', '=', id).executeTakeFirst();
    return row && toRunner(row);
  }

  async findByIds(ids: readonly number[]): Promise<RunnerRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('ci_runners').select(SELECT).where('id', 'in', [...new Set(ids)]).orderBy('id').execute();
    return rows.map(toRunner);
  }

  async findByToken(token: string): Promise<RunnerRecord | undefined> {
    const [row] = await this.byTokenDigest(digestToken(token));
    return row && toRunner(row as Parameters<typeof toRunner>[0]);
  }

  async list(filter: RunnerListFilter, page: Page): Promise<{ items: RunnerRecord[]; total: number }> {
    let query = this.db.selectFrom('ci_runners');
    // Owner lists combine with "or": only when every one given is empty can nothing match.
    const ownerLists = [filter.projectIds, filter.namespaceIds].filter((list) => list !== undefined);
    const noOwners = !filter.orInstanceType && ownerLists.length > 0 && ownerLists.every((list) => list.length === 0);
    const empty = noOwners || [filter.types, filter.ids].some((list) => list !== undefined && list.length === 0);
    if (empty) return { items: [], total: 0 };
    if (filter.types !== undefined) query = query.where('runner_type', 'in', [...filter.types]);
    if (filter.active !== undefined) query = query.where('active', '=', filter.active ? 1 : 0);
    if (filter.contactedAfter !== undefined) query = query.where('contacted_at', '>', filter.contactedAfter);
    if (filter.notContactedAfter !== undefined) {
      const before = filter.notContactedAfter;
      query = query.where((eb) => eb.or([eb('contacted_at', 'is', null), eb('contacted_at', '<=', before)]));
    }
    if (filter.lastContactedNotAfter !== undefined) query = query.where('contacted_at', '<=', filter.lastContactedNotAfter);
    if (filter.neverContacted === true) query = query.where('contacted_at', 'is', null);
    if (filter.ids !== undefined) query = query.where('id', 'in', [...new Set(filter.ids)]);
    // Runners of the given projects or groups (either, when both are given).
    if (filter.projectIds !== undefined || filter.namespaceIds !== undefined) {
      const { projectIds, namespaceIds } = filter;
      query = query.where((eb) =>
        eb.or([
          ...(projectIds?.length ? [eb('id', 'in', eb.selectFrom('ci_runner_projects').select('runner_id').where('project_id', 'in', [...projectIds]))] : []),
          ...(namespaceIds?.length ? [eb('id', 'in', eb.selectFrom('ci_runner_namespaces').select('runner_id').where('namespace_id', 'in', [...namespaceIds]))] : []),
          ...(filter.orInstanceType ? [eb('runner_type', '=', 'instance_type')] : []),
        ]),
      );
    }
    for (const tag of normalizeTags(filter.tagList ?? [])) {
      query = query.where(
        dialectOf(this.db) === 'postgres'
          ? sql<boolean>`tag_list::jsonb ? ${tag}`
          : sql<boolean>`exists (select 1 from json_each(tag_list) t where t.value = ${tag})`,
      );
    }
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query.select(SELECT).orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute();
    return { items: rows.map(toRunner), total: Number(counted.total) };
  }

  async update(id: number, changes: RunnerChanges): Promise<RunnerRecord | undefined> {
    const row = toColumns(changes);
    if (Object.keys(row).length === 0) return this.findById(id);
    const updated = await this.db.updateTable('ci_runners').set(row).where('id', '=', id).returning(SELECT).executeTakeFirst();
    return updated && toRunner(updated);
  }

  async heartbeat(id: number, info: RunnerInfo, now: string): Promise<void> {
    const reported = Object.fromEntries(Object.entries(info).filter(([, value]) => value !== undefined));
    await this.db.updateTable('ci_runners').set({ ...reported, contacted_at: now }).where('id', '=', id).execute();
  }

  async resetToken(id: number, token: string, now: string, expiresAt: string | null): Promise<RunnerRecord | undefined> {
    const updated = await this.db
      .updateTable('ci_runners')
      .set({ token_digest: digestToken(token), token_prefix: tokenPrefix(token), token_expires_at: expiresAt, updated_at: now })
      .where('id', '=', id)
      .returning(SELECT)
      .executeTakeFirst();
    return updated && toRunner(updated);
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('ci_runners').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async projectIds(runnerId: number): Promise<number[]> {
    return (await this.projectIdsOf([runnerId])).get(runnerId) ?? [];
  }

  async projectIdsOf(runnerIds: readonly number[]): Promise<Map<number, number[]>> {
    const byRunner = new Map<number, number[]>();
    if (runnerIds.length === 0) return byRunner;
    const rows = await this.db
      .selectFrom('ci_runner_projects')
      .select(['runner_id', 'project_id'])
      .where('runner_id', 'in', [...new Set(runnerIds)])
      .orderBy('id')
      .execute();
    for (const row of rows) byRunner.set(row.runner_id, [...(byRunner.get(row.runner_id) ?? []), row.project_id]);
    return byRunner;
  }

  async namespaceIds(runnerId: number): Promise<number[]> {
    const rows = await this.db.selectFrom('ci_runner_namespaces').select('namespace_id').where('runner_id', '=', runnerId).orderBy('id').execute();
    return rows.map((row) => row.namespace_id);
  }

  async assignProject(runnerId: number, projectId: number, now: string): Promise<boolean> {
    const result = await this.db
      .insertInto('ci_runner_projects')
      .values({ runner_id: runnerId, project_id: projectId, created_at: now })
      .onConflict((conflict) => conflict.columns(['runner_id', 'project_id']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async unassignProject(runnerId: number, projectId: number): Promise<boolean> {
    const result = await this.db.deleteFrom('ci_runner_projects').where('runner_id', '=', runnerId).where('project_id', '=', projectId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
