import { columnTypes, partial, withId, type DialectMigration } from './helpers.ts';

/**
 * Pipelines, their variables and stages, jobs (builds, bridges, generic commit statuses),
 * artifacts with their zip members, trace chunks, and per-project iid counters.
 */
export const ciPipelines: DialectMigration = {
  async up(db, dialect) {
    const types = columnTypes(dialect);
    await db.schema
      .createTable('internal_ids')
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('usage', 'text', (c) => c.notNull())
      .addColumn('last_value', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('internal_ids_pk', ['project_id', 'usage'])
      .execute();

    await withId(db.schema.createTable('ci_pipelines'), dialect)
      .addColumn('iid', 'integer', (c) => c.notNull())
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('ref', 'text', (c) => c.notNull())
      .addColumn('tag', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('sha', 'text', (c) => c.notNull())
      .addColumn('before_sha', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('failure_reason', 'text')
      .addColumn('yaml_errors', 'text')
      .addColumn('user_id', 'integer')
      .addColumn('protected', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('config_path', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .addColumn('finished_at', 'text')
      .addColumn('committed_at', 'text')
      .addColumn('duration', 'integer')
      .addColumn('coverage', 'text')
      .addColumn('has_warnings', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('parent_pipeline_id', 'integer', (c) => c.references('ci_pipelines.id').onDelete('set null'))
      .addColumn('source_job_id', 'integer')
      .addColumn('schedule_id', 'integer')
      .addColumn('trigger_id', 'integer')
      .addColumn('lock_version', 'integer', (c) => c.notNull().defaultTo(0))
      .addUniqueConstraint('ci_pipelines_project_iid', ['project_id', 'iid'])
      .execute();
    await db.schema.createIndex('ci_pipelines_project_id').on('ci_pipelines').columns(['project_id', 'id']).execute();
    await db.schema.createIndex('ci_pipelines_project_sha').on('ci_pipelines').columns(['project_id', 'sha', 'id']).execute();
    await db.schema.createIndex('ci_pipelines_project_ref').on('ci_pipelines').columns(['project_id', 'ref', 'id']).execute();
    await db.schema.createIndex('ci_pipelines_project_status').on('ci_pipelines').columns(['project_id', 'status', 'id']).execute();
    await db.schema.createIndex('ci_pipelines_parent').on('ci_pipelines').column('parent_pipeline_id').execute();
    await db.schema.createIndex('ci_pipelines_source_job').on('ci_pipelines').column('source_job_id').execute();

    await withId(db.schema.createTable('ci_pipeline_variables'), dialect)
      .addColumn('pipeline_id', 'integer', (c) => c.notNull().references('ci_pipelines.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('variable_type', 'text', (c) => c.notNull().defaultTo('env_var'))
      .addUniqueConstraint('ci_pipeline_variables_key', ['pipeline_id', 'key'])
      .execute();

    await withId(db.schema.createTable('ci_stages'), dialect)
      .addColumn('pipeline_id', 'integer', (c) => c.notNull().references('ci_pipelines.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addUniqueConstraint('ci_stages_pipeline_name', ['pipeline_id', 'name'])
      .execute();

    await withId(db.schema.createTable('ci_jobs'), dialect)
      .addColumn('pipeline_id', 'integer', (c) => c.notNull().references('ci_pipelines.id').onDelete('cascade'))
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('stage_id', 'integer', (c) => c.references('ci_stages.id').onDelete('set null'))
      .addColumn('stage', 'text', (c) => c.notNull())
      .addColumn('stage_idx', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('when', 'text', (c) => c.notNull())
      .addColumn('allow_failure', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('retried', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('failure_reason', 'text')
      .addColumn('exit_code', 'integer')
      .addColumn('coverage', types.double)
      .addColumn('user_id', 'integer')
      .addColumn('runner_id', 'integer', (c) => c.references('ci_runners.id').onDelete('set null'))
      .addColumn('runner_type', 'text')
      .addColumn('token_digest', 'text')
      .addColumn('tag_list', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('protected', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('ref', 'text', (c) => c.notNull())
      .addColumn('sha', 'text', (c) => c.notNull())
      .addColumn('tag', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('definition', 'text')
      .addColumn('needs', 'text')
      .addColumn('retry', 'text')
      .addColumn('start_in_seconds', 'integer')
      .addColumn('environment', 'text')
      .addColumn('target_url', 'text')
      .addColumn('description', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('queued_at', 'text')
      .addColumn('started_at', 'text')
      .addColumn('finished_at', 'text')
      .addColumn('scheduled_at', 'text')
      .addColumn('erased_at', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('artifacts_expire_at', 'text')
      .addColumn('trace_size', types.bigint)
      .addColumn('trace_checksum', 'text')
      .addColumn('lock_version', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('ci_jobs_pipeline').on('ci_jobs').columns(['pipeline_id', 'id']).execute();
    await db.schema.createIndex('ci_jobs_project').on('ci_jobs').columns(['project_id', 'id']).execute();
    await db.schema.createIndex('ci_jobs_project_ref_name').on('ci_jobs').columns(['project_id', 'ref', 'name', 'id']).execute();
    await db.schema.createIndex('ci_jobs_runner').on('ci_jobs').columns(['runner_id', 'id']).execute();
    // No index leads with `status`: SQLite (without statistics) would prefer it to the queue index below.
    await db.schema.createIndex('ci_jobs_running_updated').on('ci_jobs').column('updated_at').where(partial("status = 'running'")).execute();
    await db.schema.createIndex('ci_jobs_token').unique().on('ci_jobs').column('token_digest').where(partial('token_digest is not null')).execute();
    // The runner queue: pending builds by project, and the jobs instance runners run (fair usage).
    await db.schema
      .createIndex('ci_jobs_queue')
      .on('ci_jobs')
      .columns(['project_id', 'id'])
      .where(partial("status = 'pending' and type = 'build'"))
      .execute();
    await db.schema
      .createIndex('ci_jobs_running_shared')
      .on('ci_jobs')
      .column('project_id')
      .where(partial("status = 'running' and runner_type = 'instance_type'"))
      .execute();

    await withId(db.schema.createTable('ci_job_artifacts'), dialect)
      .addColumn('job_id', 'integer', (c) => c.notNull().references('ci_jobs.id').onDelete('cascade'))
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('file_type', 'text', (c) => c.notNull())
      .addColumn('file_format', 'text', (c) => c.notNull())
      .addColumn('file_name', 'text', (c) => c.notNull())
      .addColumn('size', types.bigint, (c) => c.notNull())
      .addColumn('sha256', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('expire_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('ci_job_artifacts_job_type', ['job_id', 'file_type'])
      .execute();
    await db.schema.createIndex('ci_job_artifacts_expire').on('ci_job_artifacts').columns(['expire_at', 'id']).where(partial('expire_at is not null')).execute();

    await db.schema
      .createTable('ci_artifact_entries')
      .addColumn('artifact_id', 'integer', (c) => c.notNull().references('ci_job_artifacts.id').onDelete('cascade'))
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('size', types.bigint, (c) => c.notNull())
      .addColumn('compressed_size', types.bigint, (c) => c.notNull())
      .addColumn('crc32', types.bigint, (c) => c.notNull())
      .addColumn('mode', 'integer', (c) => c.notNull())
      .addColumn('modified_at', 'text')
      .addPrimaryKeyConstraint('ci_artifact_entries_pk', ['artifact_id', 'path'])
      .execute();

    await db.schema
      .createTable('ci_trace_chunks')
      .addColumn('job_id', 'integer', (c) => c.notNull().references('ci_jobs.id').onDelete('cascade'))
      .addColumn('start_offset', types.bigint, (c) => c.notNull())
      .addColumn('end_offset', types.bigint, (c) => c.notNull())
      .addColumn('data', types.bytes, (c) => c.notNull())
      .addColumn('crc32', types.bigint, (c) => c.notNull())
      .addPrimaryKeyConstraint('ci_trace_chunks_pk', ['job_id', 'start_offset'])
      .execute();
  },
};
