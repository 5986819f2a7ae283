import { sql, type CompiledQuery, type RawBuilder } from '#deps/kysely';
import { dialectOf, directReaderOf, type Db, type DialectName } from '../database.ts';
import type { ClaimContext, ClaimedQueueJob, JobQueueStore, ResourceCandidate, ResourceGroupRef } from '../../types-ci-jobs.ts';
import type { SecretBox } from '../../secret-box.ts';
import type { JobStatus } from '../../../pipeline/types.ts';
import type { RunnerRecord } from '../../types-runners.ts';
import { JOB_SELECT, normalizeTags, toJob } from './ci-job-rows.ts';
import { orderedUpcoming, processModeOf, RESOURCE_HOLDING_STATUSES } from './ci-resource-groups.ts';

const PEEK_CACHE_SIZE = 1_000;

type QueueRunner = Pick<RunnerRecord, 'id' | 'runner_type' | 'tag_list' | 'run_untagged' | 'access_level'>;

/**
 * The runner queue. One statement claims a job:
 *
 * 1. `pending_projects`: the projects that have pending builds, found by skipping through
 *    the partial index `ci_jobs_queue (project_id, id)` one project at a time (a loose index
 *    scan: O(projects · log jobs), however many jobs one project queues).
 * 2. `candidates`: those the runner may serve, each with its oldest job the runner matches
 *    (tags, protection) and, for instance runners, how many of its jobs instance runners run.
 *    A job of a `resource_group` is pending only once its group assigned it the resource
 *    (`nextForResource`, in the group's process mode), so the claim needs no condition of its own for groups.
 *    The project is matched as a range and ordered by (project_id, id) so only the queue index
 *    serves that order: with `project_id = p.id ORDER BY id`, PostgreSQL walks the primary key
 *    instead, through every other project's jobs.
 *    On PostgreSQL that oldest job is taken `FOR UPDATE SKIP LOCKED`, so concurrent claims
 *    step past each other's jobs instead of waiting or colliding. (The candidates that lose
 *    stay locked until the claim's transaction ends: keep that transaction short.)
 * 3. The UPDATE moves the first candidate job — fewest running first for instance runners
 *    (GitLab's fair usage), then oldest — to `running`, if it is still pending.
 */
export class SqlJobQueueStore implements JobQueueStore {
  private readonly peeks = new Map<string, CompiledQuery<Record<string, unknown>>>();

  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  async claim(runner: QueueRunner, context: ClaimContext): Promise<ClaimedQueueJob | undefined> {
    const result = await claimStatement(runner, context, dialectOf(this.db)).execute(this.db);
    const row = result.rows[0];
    if (!row) return undefined;
    const { project_archived: archived, ...jobRow } = row;
    return { job: toJob(jobRow, this.secrets), projectArchived: Number(archived) === 1 };
  }

  async hasCandidate(runner: QueueRunner): Promise<boolean> {
    // Compiled once per runner shape: idle runners ask every few seconds, compiling costs more than the read.
    const key = `${runner.id}:${runner.runner_type}:${runner.access_level}:${String(runner.run_untagged)}:${runner.tag_list.join(',')}`;
    let query = this.peeks.get(key);
    if (!query) {
      query = peekStatement(runner, dialectOf(this.db)).compile(this.db);
      if (this.peeks.size >= PEEK_CACHE_SIZE) this.peeks.delete(this.peeks.keys().next().value as string);
      this.peeks.set(key, query);
    }
    // On SQLite outside a transaction this read runs at once, without kysely's connection queue.
    const rows = directReaderOf(this.db)?.read(query.sql, query.parameters) ?? (await this.db.executeQuery(query)).rows;
    return rows.length > 0;
  }

  async nextForResource(projectId: number, key: string): Promise<ResourceCandidate | undefined> {
    if (dialectOf(this.db) === 'postgres') {
      // Held until the caller's transaction ends, so that the move to pending is part of it.
      await sql`SELECT pg_advisory_xact_lock(${projectId}::integer, hashtext(${key}))`.execute(this.db);
    }
    const group = this.db.selectFrom('ci_jobs').where('project_id', '=', projectId).where('resource_group', '=', key);
    const holder = await group.select('id').where('status', 'in', RESOURCE_HOLDING_STATUSES).limit(1).executeTakeFirst();
    if (holder) return undefined;
    const mode = await processModeOf(this.db, projectId, key);
    const first = await orderedUpcoming(this.db, { project_id: projectId, key, process_mode: mode }, ['id', 'pipeline_id', 'status'] as const).limit(1).executeTakeFirst();
    return first && { id: first.id, pipeline_id: first.pipeline_id, status: first.status as JobStatus };
  }

  async groupsAwaitingResource(limit: number): Promise<ResourceGroupRef[]> {
    const result = await sql<{ project_id: number; resource_group: string }>`
      SELECT DISTINCT w.project_id, w.resource_group FROM ci_jobs w
      WHERE w.status = 'waiting_for_resource' AND NOT EXISTS (
        SELECT 1 FROM ci_jobs h WHERE h.project_id = w.project_id AND h.resource_group = w.resource_group
          AND h.status IN (${sql.join(RESOURCE_HOLDING_STATUSES.map((status) => sql.lit(status)))}))
      ORDER BY w.project_id, w.resource_group LIMIT ${limit}
    `.execute(this.db);
    return result.rows.map((row) => ({ projectId: Number(row.project_id), key: row.resource_group }));
  }
}


/** The claim as one statement (exported for EXPLAIN in bench/queue-claim.ts). */
export function claimStatement(runner: QueueRunner, context: ClaimContext, dialect: DialectName): RawBuilder<Record<string, unknown>> {
  return sql<Record<string, unknown>>`
    ${candidatesQuery(runner, dialect, true)}
    UPDATE ci_jobs
    SET status = 'running', runner_id = ${runner.id}, runner_type = ${runner.runner_type}, token_digest = ${context.tokenDigest},
        started_at = ${context.now}, updated_at = ${context.now}, lock_version = lock_version + 1,
        cancel_gracefully = ${context.cancelGracefully === true ? 1 : 0}
    WHERE id = (SELECT c.job_id FROM candidates c WHERE c.job_id IS NOT NULL ORDER BY c.running, c.job_id LIMIT 1)
      AND status = 'pending'
    RETURNING ${sql.join(JOB_SELECT.map((column) => sql.ref(column)))},
      (SELECT p.archived FROM projects p WHERE p.id = ci_jobs.project_id) AS project_archived
  `;
}

/** Whether a claim would find a job now: the same candidates, read without locks or writes. */
export function peekStatement(runner: QueueRunner, dialect: DialectName): RawBuilder<Record<string, unknown>> {
  return sql<Record<string, unknown>>`
    ${candidatesQuery(runner, dialect, false)}
    SELECT 1 AS found FROM candidates c WHERE c.job_id IS NOT NULL LIMIT 1
  `;
}

/** The `WITH` part both statements share: `candidates(project_id, job_id, running)`. */
function candidatesQuery(runner: QueueRunner, dialect: DialectName, locking: boolean): RawBuilder<unknown> {
  const shared = runner.runner_type === 'instance_type';
  const groupsCte =
    runner.runner_type === 'group_type'
      ? sql`, runner_groups(id) AS (
          SELECT namespace_id FROM ci_runner_namespaces WHERE runner_id = ${runner.id}
          UNION SELECT n.id FROM namespaces n JOIN runner_groups g ON n.parent_id = g.id)`
      : sql``;
  const lock = locking && dialect === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
  const running = shared
    ? sql`(SELECT count(*) FROM ci_jobs r WHERE r.status = 'running' AND r.runner_type = 'instance_type' AND r.project_id = p.id)`
    : sql`0`;
  return sql`
    WITH RECURSIVE pending_projects(project_id) AS (
      SELECT (SELECT project_id FROM ci_jobs WHERE status = 'pending' AND type = 'build' ORDER BY project_id LIMIT 1)
      UNION ALL
      SELECT (SELECT q.project_id FROM ci_jobs q WHERE q.status = 'pending' AND q.type = 'build' AND q.project_id > pp.project_id
              ORDER BY q.project_id LIMIT 1)
      FROM pending_projects pp WHERE pp.project_id IS NOT NULL
    )${groupsCte},
    candidates AS (
      SELECT p.id AS project_id,
        (SELECT j.id FROM ci_jobs j
         WHERE j.status = 'pending' AND j.type = 'build' AND j.project_id >= p.id AND j.project_id <= p.id ${jobMatch(runner, dialect)}
         ORDER BY j.project_id, j.id LIMIT 1 ${lock}) AS job_id,
        ${running} AS running
      FROM pending_projects pp JOIN projects p ON p.id = pp.project_id
      WHERE p.jobs_enabled = 1 AND p.pending_delete = 0 ${runnerScope(runner)}
    )`;
}

/** Which projects the runner serves (`p` is the project). */
function runnerScope(runner: QueueRunner): RawBuilder<unknown> {
  switch (runner.runner_type) {
    case 'instance_type':
      return sql`AND p.shared_runners_enabled = 1`;
    case 'project_type':
      return sql`AND p.id IN (SELECT rp.project_id FROM ci_runner_projects rp WHERE rp.runner_id = ${runner.id})`;
    case 'group_type':
      return sql`AND p.namespace_id IN (SELECT id FROM runner_groups)`;
  }
}

/** Which jobs the runner may take (`j` is the job): protection, then tags. */
function jobMatch(runner: QueueRunner, dialect: DialectName): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (runner.access_level === 'ref_protected') parts.push(sql`AND j.protected = 1`);
  const tags = normalizeTags(runner.tag_list);
  if (tags.length === 0) {
    parts.push(runner.run_untagged ? sql`AND j.tag_list = '[]'` : sql`AND 1 = 0`);
  } else {
    if (!runner.run_untagged) parts.push(sql`AND j.tag_list <> '[]'`);
    parts.push(
      dialect === 'postgres'
        ? sql`AND j.tag_list::jsonb <@ ${JSON.stringify(tags)}::jsonb`
        : sql`AND NOT EXISTS (SELECT 1 FROM json_each(j.tag_list) t WHERE t.value NOT IN (${sql.join(tags)}))`,
    );
  }
  return sql.join(parts, sql` `);
}
