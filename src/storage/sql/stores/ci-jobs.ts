import { sql } from '#deps/kysely';
import type { JobChange, JobStatus, PipelineJob } from '../../../pipeline/types.ts';
import { countAll, type Db } from '../database.ts';
import { preparedQuery } from '../prepared.ts';
import type { SecretBox } from '../../secret-box.ts';
import type { Page } from '../../types-ci.ts';
import type { AppliedJobChanges, CiJobsStore, JobChanges, JobListFilter, JobRecord, NewJob, StatusesForShaFilter } from '../../types-ci-jobs.ts';
import { applyJobChanges } from './ci-job-changes.ts';
import { JOB_SELECT, PIPELINE_JOB_SELECT, toJob, toJobColumns, toPipelineJob } from './ci-job-rows.ts';

/** Rows per INSERT: ~45 columns each stays under both backends' parameter limits. */
const INSERT_BATCH = 200;

const JOB_DEFAULTS: Required<Omit<NewJob, 'pipeline_id' | 'project_id' | 'stage' | 'stage_idx' | 'name' | 'type' | 'status' | 'when' | 'allow_failure' | 'ref' | 'sha' | 'created_at' | 'updated_at'>> = {
  stage_id: null, retried: false, failure_reason: null, exit_code: null, coverage: null, user_id: null, runner_id: null, runner_type: null, cancel_gracefully: false,
  tag_list: [], protected: false, tag: false, definition: null, needs: null, retry: null, start_in_seconds: null, environment: null,
  target_url: null, description: null, queued_at: null, started_at: null, finished_at: null, scheduled_at: null, erased_at: null,
  artifacts_expire_at: null, trace_size: null, trace_checksum: null, downstream_errors: null, resource_group: null,
  environment_url: null, environment_auto_stop_in: null, environment_variables: null,
};

export class SqlCiJobsStore implements CiJobsStore {
  // Every job-token request reads its job: the wide select is built once.
  private readonly byId;
  private readonly byTokenDigest;

  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {
    this.byId = preparedQuery(db, (id: number) => db.selectFrom('ci_jobs').select(JOB_SELECT).where('id', '=', id).compile());
    this.byTokenDigest = preparedQuery(db, (digest: string) => db.selectFrom('ci_jobs').select(JOB_SELECT).where('token_digest', '=', digest).compile());
  }

  async insertMany(jobs: readonly NewJob[]): Promise<JobRecord[]> {
    const inserted: JobRecord[] = [];
    for (let start = 0; start < jobs.length; start += INSERT_BATCH) {
      const rows = jobs.slice(start, start + INSERT_BATCH).map((job) => toJobColumns({ ...JOB_DEFAULTS, updated_at: job.created_at, ...job }, this.secrets));
      const returned = await this.db.insertInto('ci_jobs').values(rows).returning(JOB_SELECT).execute();
      // Ids grow in VALUES order on both backends; RETURNING's own order is not promised.
      inserted.push(...returned.map((row) => toJob(row, this.secrets)).sort((a, b) => a.id - b.id));
    }
    return inserted;
  }

  async findById(id: number): Promise<JobRecord | undefined> {
    const [row] = await this.byId(id);
    return row && toJob(row, this.secrets);
  }

  async findByIds(ids: readonly number[]): Promise<JobRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('ci_jobs').select(JOB_SELECT).where('id', 'in', [...new Set(ids)]).orderBy('id').execute();
    return rows.map((row) => toJob(row, this.secrets));
  }

  async findInProject(projectId: number, id: number): Promise<JobRecord | undefined> {
    const row = await this.db.selectFrom('ci_jobs').select(JOB_SELECT).where('id', '=', id).where('project_id', '=', projectId).executeTakeFirst();
    return row && toJob(row, this.secrets);
  }

  async findByTokenDigest(digest: string): Promise<JobRecord | undefined> {
    const [row] = await this.byTokenDigest(digest);
    return row && toJob(row, this.secrets);
  }

  async loadPipelineJobs(pipelineId: number): Promise<PipelineJob[]> {
    const rows = await this.db.selectFrom('ci_jobs').select(PIPELINE_JOB_SELECT).where('pipeline_id', '=', pipelineId).orderBy('id').execute();
    return rows.map(toPipelineJob);
  }

  async applyChanges(pipelineId: number, changes: readonly JobChange[], context: { now: string; userId?: number | null }): Promise<AppliedJobChanges> {
    return applyJobChanges(this.db, pipelineId, changes, context);
  }

  async update(id: number, changes: JobChanges, expectedLockVersion?: number): Promise<boolean> {
    const row = toJobColumns(changes, this.secrets);
    if (Object.keys(row).length === 0) return (await this.findById(id)) !== undefined;
    let query = this.db
      .updateTable('ci_jobs')
      .set({ ...row, lock_version: sql<number>`lock_version + 1` })
      .where('id', '=', id);
    if (expectedLockVersion !== undefined) query = query.where('lock_version', '=', expectedLockVersion);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async setTokenDigest(id: number, digest: string | null): Promise<void> {
    await this.db.updateTable('ci_jobs').set({ token_digest: digest }).where('id', '=', id).execute();
  }

  async list(filter: JobListFilter, page: Page): Promise<{ items: JobRecord[]; total: number }> {
    let query = this.db.selectFrom('ci_jobs');
    if (filter.projectId !== undefined) query = query.where('project_id', '=', filter.projectId);
    if (filter.pipelineId !== undefined) query = query.where('pipeline_id', '=', filter.pipelineId);
    if (filter.runnerId !== undefined) query = query.where('runner_id', '=', filter.runnerId);
    if (filter.statuses !== undefined) {
      if (filter.statuses.length === 0) return { items: [], total: 0 };
      query = query.where('status', 'in', [...filter.statuses]);
    }
    if (filter.types !== undefined) {
      if (filter.types.length === 0) return { items: [], total: 0 };
      query = query.where('type', 'in', [...filter.types]);
    }
    if (!filter.includeRetried) query = query.where('retried', '=', 0);
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query
      .select(JOB_SELECT)
      .orderBy('id', filter.sort ?? 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute();
    return { items: rows.map((row) => toJob(row, this.secrets)), total: Number(counted.total) };
  }

  async latestSuccessfulByRefAndName(projectId: number, ref: string, name: string): Promise<JobRecord | undefined> {
    const latestSuccessfulPipeline = this.db
      .selectFrom('ci_pipelines')
      .select('id')
      .where('project_id', '=', projectId)
      .where('ref', '=', ref)
      .where('status', '=', 'success')
      .orderBy('id', 'desc')
      .limit(1);
    const row = await this.db
      .selectFrom('ci_jobs')
      .select(JOB_SELECT)
      .where('pipeline_id', '=', latestSuccessfulPipeline)
      .where('name', '=', name)
      .where('type', '=', 'build')
      .where('status', '=', 'success')
      .where('retried', '=', 0)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toJob(row, this.secrets);
  }

  async statusesForSha(projectId: number, sha: string, filter: StatusesForShaFilter): Promise<JobRecord[]> {
    let pipelines = this.db.selectFrom('ci_pipelines').select('id').where('project_id', '=', projectId).where('sha', '=', sha);
    if (filter.ref !== undefined) pipelines = pipelines.where('ref', '=', filter.ref);
    let query = this.db.selectFrom('ci_jobs').select(JOB_SELECT).where('pipeline_id', 'in', pipelines);
    if (!filter.all) query = query.where('retried', '=', 0);
    if (filter.stage !== undefined) query = query.where('stage', '=', filter.stage);
    if (filter.name !== undefined) query = query.where('name', '=', filter.name);
    const rows = await query.orderBy('id').execute();
    return rows.map((row) => toJob(row, this.secrets));
  }

  async findOpenGenericStatus(pipelineId: number, name: string, ref: string): Promise<JobRecord | undefined> {
    const row = await this.db
      .selectFrom('ci_jobs')
      .select(JOB_SELECT)
      .where('pipeline_id', '=', pipelineId)
      .where('type', '=', 'generic')
      .where('name', '=', name)
      .where('ref', '=', ref)
      .where('status', 'in', ['pending', 'running'])
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toJob(row, this.secrets);
  }

  async listStale(status: JobStatus, before: string, limit: number): Promise<JobRecord[]> {
    const rows = await this.db
      .selectFrom('ci_jobs')
      .select(JOB_SELECT)
      // A literal status lets both backends use the partial indexes (running: by updated_at; pending: the queue).
      .where(sql<boolean>`status = ${sql.lit(status)}`)
      .where('updated_at', '<', before)
      .orderBy('updated_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => toJob(row, this.secrets));
  }

  async listUnacknowledged(claimedBefore: string, limit: number): Promise<JobRecord[]> {
    const rows = await this.db
      .selectFrom('ci_jobs')
      .select(JOB_SELECT)
      // The running partial index by updated_at serves this: an unacknowledged job's updated_at is its claim time.
      .where(sql<boolean>`status = 'running'`)
      .where('type', '=', 'build')
      .where('updated_at', '<', claimedBefore)
      .where(sql<boolean>`updated_at = started_at`)
      .orderBy('updated_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => toJob(row, this.secrets));
  }

  async latestCoverages(pipelineId: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('ci_jobs')
      .select('coverage')
      .where('pipeline_id', '=', pipelineId)
      .where('retried', '=', 0)
      .where('coverage', 'is not', null)
      .orderBy('id')
      .execute();
    return rows.flatMap((row) => (row.coverage === null ? [] : [Number(row.coverage)]));
  }
}
