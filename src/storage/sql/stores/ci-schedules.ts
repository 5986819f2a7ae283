import { countAll, type Db } from '../database.ts';
import type { SecretBox } from '../../secret-box.ts';
import type { CiVariableType, Page } from '../../types-ci.ts';
import type { NewSchedule, ScheduleChanges, ScheduleRecord, SchedulesStore, ScheduleVariableRecord } from '../../types-ci-settings.ts';
import { ColumnKinds } from './row-mapping.ts';

const SCHEDULE_KINDS = new ColumnKinds<ScheduleRecord>({ active: 'boolean' });
const toSchedule = (row: object) => SCHEDULE_KINDS.toRecord(row);
const toVariable = (row: { key: string; value: string; variable_type: string }, secrets: SecretBox): ScheduleVariableRecord => ({
  key: row.key,
  value: secrets.open(row.value),
  variable_type: row.variable_type as CiVariableType,
});

export class SqlSchedulesStore implements SchedulesStore {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  async create(schedule: NewSchedule): Promise<ScheduleRecord> {
    const row = await this.db.insertInto('ci_pipeline_schedules').values(SCHEDULE_KINDS.toColumns(schedule)).returningAll().executeTakeFirstOrThrow();
    return toSchedule(row);
  }

  async findInProject(projectId: number, id: number): Promise<ScheduleRecord | undefined> {
    const row = await this.db.selectFrom('ci_pipeline_schedules').selectAll().where('id', '=', id).where('project_id', '=', projectId).executeTakeFirst();
    return row && toSchedule(row);
  }

  async list(projectId: number, filter: { active?: boolean }, page: Page): Promise<{ items: ScheduleRecord[]; total: number }> {
    let query = this.db.selectFrom('ci_pipeline_schedules').where('project_id', '=', projectId);
    if (filter.active !== undefined) query = query.where('active', '=', filter.active ? 1 : 0);
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query.selectAll().orderBy('id').offset(page.offset).limit(page.limit).execute();
    return { items: rows.map(toSchedule), total: Number(counted.total) };
  }

  async update(id: number, changes: ScheduleChanges): Promise<ScheduleRecord | undefined> {
    const row = SCHEDULE_KINDS.toColumns(changes);
    if (Object.keys(row).length === 0) {
      const current = await this.db.selectFrom('ci_pipeline_schedules').selectAll().where('id', '=', id).executeTakeFirst();
      return current && toSchedule(current);
    }
    const updated = await this.db.updateTable('ci_pipeline_schedules').set(row).where('id', '=', id).returningAll().executeTakeFirst();
    return updated && toSchedule(updated);
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('ci_pipeline_schedules').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async listDue(now: string, limit: number): Promise<ScheduleRecord[]> {
    const rows = await this.db
      .selectFrom('ci_pipeline_schedules')
      .selectAll()
      .where('active', '=', 1)
      .where('next_run_at', 'is not', null)
      .where('next_run_at', '<=', now)
      .orderBy('next_run_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toSchedule);
  }

  async advance(id: number, expected: string, next: string | null, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('ci_pipeline_schedules')
      .set({ next_run_at: next, updated_at: now })
      .where('id', '=', id)
      .where('next_run_at', '=', expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async listVariables(scheduleId: number): Promise<ScheduleVariableRecord[]> {
    const rows = await this.db
      .selectFrom('ci_pipeline_schedule_variables')
      .select(['key', 'value', 'variable_type'])
      .where('schedule_id', '=', scheduleId)
      .orderBy('id')
      .execute();
    return rows.map((row) => toVariable(row, this.secrets));
  }

  async createVariable(scheduleId: number, variable: ScheduleVariableRecord, now: string): Promise<ScheduleVariableRecord> {
    await this.db.insertInto('ci_pipeline_schedule_variables').values({ schedule_id: scheduleId, ...variable, value: this.secrets.seal(variable.value), created_at: now, updated_at: now }).execute();
    return variable;
  }

  async updateVariable(scheduleId: number, key: string, changes: Partial<Omit<ScheduleVariableRecord, 'key'>>, now: string): Promise<ScheduleVariableRecord | undefined> {
    const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    if (changes.value !== undefined) set.value = this.secrets.seal(changes.value);
    const row = await this.db
      .updateTable('ci_pipeline_schedule_variables')
      .set({ ...set, updated_at: now })
      .where('schedule_id', '=', scheduleId)
      .where('key', '=', key)
      .returning(['key', 'value', 'variable_type'])
      .executeTakeFirst();
    return row && toVariable(row, this.secrets);
  }

  async deleteVariable(scheduleId: number, key: string): Promise<boolean> {
    const result = await this.db.deleteFrom('ci_pipeline_schedule_variables').where('schedule_id', '=', scheduleId).where('key', '=', key).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
