import { sql, type ExpressionBuilder } from '#deps/kysely';
import { countAll, type Db } from '../database.ts';
import type { DatabaseSchema } from '../schema.ts';
import type { Page, PipelineRecord } from '../../types-ci.ts';
import type { MergeRequestPipelinesQuery, MergeRequestPipelinesStore } from '../../types-merge-request-pipelines.ts';
import { toPipeline } from './ci-pipelines.ts';

export class SqlMergeRequestPipelinesStore implements MergeRequestPipelinesStore {
  constructor(private readonly db: Db) {}

  async list(query: MergeRequestPipelinesQuery, page: Page): Promise<{ items: PipelineRecord[]; total: number }> {
    // A child pipeline is its parent's part, listed under it (GitLab's `ci_sources`).
    const base = this.db.selectFrom('ci_pipelines').where('source', '<>', 'parent_pipeline').where((eb) => ofRequest(eb, query));
    const [rows, total] = await Promise.all([
      base.selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
      base.select(countAll().as('count')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toPipeline), total: Number(total.count) };
  }

  async refreshHeadPipeline(mergeRequestId: number): Promise<number | null> {
    // Correlated to the row being updated: a head_sha written meanwhile is the one compared.
    const head = sql<number | null>`(
      select p.id from ci_pipelines p
      where p.sha = merge_requests.head_sha
        and p.source <> 'parent_pipeline'
        and (p.merge_request_id = merge_requests.id
          or (p.merge_request_id is null and p.tag = 0 and p.project_id = merge_requests.source_project_id and p.ref = merge_requests.source_branch))
      order by case when p.merge_request_id is null then 1 else 0 end, p.id desc
      limit 1)`;
    const row = await this.db
      .updateTable('merge_requests')
      .set({ head_pipeline_id: head })
      .where('id', '=', mergeRequestId)
      .returning('head_pipeline_id')
      .executeTakeFirst();
    return row?.head_pipeline_id ?? null;
  }

  async hasOwnPipelineAt(mergeRequestId: number, sha: string): Promise<boolean> {
    const row = await this.db.selectFrom('ci_pipelines').select('id').where('merge_request_id', '=', mergeRequestId).where('sha', '=', sha).where('source', '<>', 'parent_pipeline').limit(1).executeTakeFirst();
    return row !== undefined;
  }
}

function ofRequest(eb: ExpressionBuilder<DatabaseSchema, 'ci_pipelines'>, query: MergeRequestPipelinesQuery) {
  const own = eb('merge_request_id', '=', query.mergeRequestId);
  if (query.sourceProjectId === null || query.commitShas.length === 0) return own;
  return eb.or([
    own,
    eb.and([
      eb('merge_request_id', 'is', null),
      eb('project_id', '=', query.sourceProjectId),
      eb('ref', '=', query.sourceBranch),
      eb('tag', '=', 0),
      eb('sha', 'in', [...new Set(query.commitShas)]),
    ]),
  ]);
}
