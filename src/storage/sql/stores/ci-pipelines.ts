import { sql } from '#deps/kysely';
import { countAll, dialectOf, inTransaction, type Db } from '../database.ts';
import { preparedQuery } from '../prepared.ts';
import type { NewPipeline, Page, PipelineChanges, PipelineListFilter, PipelineRecord, PipelinesStore } from '../../types-ci.ts';
import { nextInternalId } from './internal-ids.ts';
import { ColumnKinds } from './row-mapping.ts';

const PIPELINE_KINDS = new ColumnKinds<PipelineRecord>({ tag: 'boolean', protected: 'boolean', has_warnings: 'boolean' });
const FINISHED = ['success', 'failed', 'canceled', 'skipped'];
const ZERO_SHA = '0'.repeat(40);

export const toPipeline = (row: object) => PIPELINE_KINDS.toRecord(row);

export class SqlPipelinesStore implements PipelinesStore {
  private readonly byId;

  constructor(private readonly db: Db) {
    this.byId = preparedQuery(db, (id: number) => db.selectFrom('ci_pipelines').selectAll().where('id', '=', id).compile());
  }

  async create(pipeline: NewPipeline): Promise<PipelineRecord> {
    const row = PIPELINE_KINDS.toColumns(
      {
        tag: false, before_sha: ZERO_SHA, failure_reason: null, yaml_errors: null, user_id: null, protected: false, config_path: null,
        started_at: null, finished_at: null, committed_at: null, duration: null, coverage: null, has_warnings: false,
        parent_pipeline_id: null, source_job_id: null, schedule_id: null, trigger_id: null, merge_request_id: null, updated_at: pipeline.created_at,
        name: null, auto_cancel_on_new_commit: 'conservative', auto_cancel_on_job_failure: 'none',
        ...pipeline,
      },
    );
    return inTransaction(this.db, async (trx) => {
      const iid = await nextInternalId(trx, pipeline.project_id, 'ci_pipelines');
      const inserted = await trx.insertInto('ci_pipelines').values({ ...row, iid }).returningAll().executeTakeFirstOrThrow();
      return toPipeline(inserted);
    });
  }

  async findById(id: number): Promise<PipelineRecord | undefined> {
    const [row] = await this.byId(id);
    return row && toPipeline(row);
  }

  async findByIds(ids: readonly number[]): Promise<PipelineRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('ci_pipelines').selectAll().where('id', 'in', [...new Set(ids)]).orderBy('id').execute();
    return rows.map(toPipeline);
  }

  async findInProject(projectId: number, id: number): Promise<PipelineRecord | undefined> {
    const row = await this.db.selectFrom('ci_pipelines').selectAll().where('id', '=', id).where('project_id', '=', projectId).executeTakeFirst();
    return row && toPipeline(row);
  }

  async lockForProcessing(id: number): Promise<PipelineRecord | undefined> {
    const query = this.db.selectFrom('ci_pipelines').selectAll().where('id', '=', id);
    const row = await (dialectOf(this.db) === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    return row && toPipeline(row);
  }

  async update(id: number, changes: PipelineChanges): Promise<PipelineRecord | undefined> {
    const row = PIPELINE_KINDS.toColumns(changes);
    if (Object.keys(row).length === 0) return this.findById(id);
    const updated = await this.db
      .updateTable('ci_pipelines')
      .set({ ...row, lock_version: sql<number>`lock_version + 1` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return updated && toPipeline(updated);
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('ci_pipelines').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async list(filter: PipelineListFilter, page: Page): Promise<{ items: PipelineRecord[]; total: number }> {
    let query = this.db.selectFrom('ci_pipelines').where('project_id', '=', filter.projectId);
    switch (filter.scope) {
      case 'running':
      case 'pending':
        query = query.where('status', '=', filter.scope);
        break;
      case 'finished':
        query = query.where('status', 'in', FINISHED);
        break;
      case 'branches':
      case 'tags': {
        const latestPerRef = this.db
          .selectFrom('ci_pipelines')
          .select((eb) => eb.fn.max('id').as('id'))
          .where('project_id', '=', filter.projectId)
          .where('tag', '=', filter.scope === 'tags' ? 1 : 0)
          .groupBy('ref');
        query = query.where('id', 'in', latestPerRef);
        break;
      }
    }
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.ref !== undefined) query = query.where('ref', '=', filter.ref);
    if (filter.sha !== undefined) query = query.where('sha', '=', filter.sha);
    if (filter.source !== undefined) query = query.where('source', '=', filter.source);
    if (filter.scheduleId !== undefined) query = query.where('schedule_id', '=', filter.scheduleId);
    if (filter.yamlErrors !== undefined) query = query.where('yaml_errors', filter.yamlErrors ? 'is not' : 'is', null);
    if (filter.username !== undefined) {
      const users = this.db.selectFrom('users').select('id').where(sql`lower(username)`, '=', filter.username.toLowerCase());
      query = query.where('user_id', 'in', users);
    }
    if (filter.userName !== undefined) query = query.where('user_id', 'in', this.db.selectFrom('users').select('id').where('name', '=', filter.userName));
    if (filter.updatedBefore !== undefined) query = query.where('updated_at', '<', filter.updatedBefore);
    if (filter.updatedAfter !== undefined) query = query.where('updated_at', '>', filter.updatedAfter);
    if (filter.createdBefore !== undefined) query = query.where('created_at', '<', filter.createdBefore);
    if (filter.createdAfter !== undefined) query = query.where('created_at', '>', filter.createdAfter);

    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const sort = filter.sort ?? 'desc';
    const orderBy = filter.orderBy ?? 'id';
    let ordered = query.selectAll().orderBy(orderBy, sort);
    if (orderBy !== 'id') ordered = ordered.orderBy('id', sort);
    const rows = await ordered.offset(page.offset).limit(page.limit).execute();
    return { items: rows.map(toPipeline), total: Number(counted.total) };
  }

  async latestFor(projectId: number, sha: string, ref?: string): Promise<PipelineRecord | undefined> {
    let query = this.db
      .selectFrom('ci_pipelines')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('sha', '=', sha)
      .where('source', '<>', 'parent_pipeline');
    if (ref !== undefined) query = query.where('ref', '=', ref);
    const row = await query.orderBy('id', 'desc').limit(1).executeTakeFirst();
    return row && toPipeline(row);
  }

  async latestSuccessfulForRef(projectId: number, ref: string): Promise<PipelineRecord | undefined> {
    const row = await this.db
      .selectFrom('ci_pipelines')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('ref', '=', ref)
      .where('status', '=', 'success')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toPipeline(row);
  }

  async listBySourceJobs(jobIds: readonly number[]): Promise<PipelineRecord[]> {
    if (jobIds.length === 0) return [];
    const rows = await this.db.selectFrom('ci_pipelines').selectAll().where('source_job_id', 'in', [...new Set(jobIds)]).orderBy('id').execute();
    return rows.map(toPipeline);
  }
}
