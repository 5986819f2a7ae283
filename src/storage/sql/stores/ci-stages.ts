import type { Db } from '../database.ts';
import type { SecretBox } from '../../secret-box.ts';
import type { CiVariableType, JobStatus, PipelineVariableRecord, PipelineVariablesStore, StageRecord, StagesStore } from '../../types-ci.ts';

const toStage = (row: { id: number; pipeline_id: number; name: string; position: number; status: string }): StageRecord => ({
  ...row,
  status: row.status as JobStatus,
});

export class SqlStagesStore implements StagesStore {
  constructor(private readonly db: Db) {}

  async insertMany(pipelineId: number, stages: ReadonlyArray<{ name: string; position: number; status: JobStatus }>): Promise<StageRecord[]> {
    if (stages.length === 0) return [];
    const rows = await this.db
      .insertInto('ci_stages')
      .values(stages.map((stage) => ({ pipeline_id: pipelineId, name: stage.name, position: stage.position, status: stage.status })))
      .returningAll()
      .execute();
    return rows.map(toStage).sort((a, b) => a.position - b.position || a.id - b.id);
  }

  async listForPipeline(pipelineId: number): Promise<StageRecord[]> {
    const rows = await this.db.selectFrom('ci_stages').selectAll().where('pipeline_id', '=', pipelineId).orderBy('position').orderBy('id').execute();
    return rows.map(toStage);
  }

  async updateStatuses(pipelineId: number, statuses: ReadonlyArray<{ name: string; status: JobStatus }>): Promise<void> {
    for (const { name, status } of statuses) {
      await this.db
        .updateTable('ci_stages')
        .set({ status })
        .where('pipeline_id', '=', pipelineId)
        .where('name', '=', name)
        .where('status', '<>', status)
        .execute();
    }
  }
}

/**
 * Rows per insert statement: 4 bound values each keeps a statement far below SQLite's 32,766
 * and PostgreSQL's 65,535 parameters, whatever the number of variables.
 */
const VARIABLE_INSERT_BATCH = 500;

export class SqlPipelineVariablesStore implements PipelineVariablesStore {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  /** Stores the variables (the last of a key wins), in batches; callers run it in their transaction. */
  async add(pipelineId: number, variables: readonly PipelineVariableRecord[]): Promise<void> {
    const rows = [...new Map(variables.map((variable) => [variable.key, variable])).values()];
    for (let start = 0; start < rows.length; start += VARIABLE_INSERT_BATCH) {
      await this.db
        .insertInto('ci_pipeline_variables')
        .values(rows.slice(start, start + VARIABLE_INSERT_BATCH).map((variable) => ({ pipeline_id: pipelineId, ...variable, value: this.secrets.seal(variable.value) })))
        .onConflict((conflict) =>
          conflict.columns(['pipeline_id', 'key']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), variable_type: eb.ref('excluded.variable_type') })),
        )
        .execute();
    }
  }

  async list(pipelineId: number): Promise<PipelineVariableRecord[]> {
    const rows = await this.db.selectFrom('ci_pipeline_variables').select(['key', 'value', 'variable_type']).where('pipeline_id', '=', pipelineId).orderBy('id').execute();
    return rows.map((row) => ({ ...row, value: this.secrets.open(row.value), variable_type: row.variable_type as CiVariableType }));
  }
}
