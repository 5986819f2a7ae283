import { sql } from 'kysely';
import type { Db } from '../database.ts';
import { preparedQuery, preparedUpdateById } from '../prepared.ts';
import type { NewProject, ProjectChanges, ProjectRecord, ProjectRepositoryState, ProjectsStore } from '../../types.ts';
import { recordToRow, rowToRecord, type ColumnKinds } from './row-mapping.ts';

export const PROJECT_COLUMNS: ColumnKinds<ProjectRecord> = {
  booleans: [
    'archived', 'issues_enabled', 'merge_requests_enabled', 'wiki_enabled', 'jobs_enabled', 'snippets_enabled',
    'container_registry_enabled', 'resolve_outdated_diff_discussions', 'shared_runners_enabled', 'public_jobs',
    'request_access_enabled', 'only_allow_merge_if_pipeline_succeeds',
    'only_allow_merge_if_all_discussions_are_resolved', 'printing_merge_requests_link_enabled', 'lfs_enabled',
    'pending_delete',
  ],
  json: ['tag_list'],
};

export const toProject = (row: object) => rowToRecord<ProjectRecord>(row, PROJECT_COLUMNS);
const toRow = <T>(record: Partial<T>) => recordToRow<T>(record, PROJECT_COLUMNS as unknown as ColumnKinds<T>);

export class SqlProjectsStore implements ProjectsStore {
  private readonly byId;
  private readonly updateById;

  constructor(protected readonly db: Db) {
    this.byId = preparedQuery<object>(db, 1, (id) => db.selectFrom('projects').selectAll().where('id', '=', id as never).compile());
    this.updateById = preparedUpdateById(db, 'projects');
  }

  async create(project: NewProject): Promise<ProjectRecord> {
    const inserted = await this.db
      .insertInto('projects')
      .values(toRow<NewProject>(project) as never)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toProject(inserted);
  }

  async findById(id: number): Promise<ProjectRecord | undefined> {
    const [row] = await this.byId(id);
    return row && toProject(row);
  }

  async findByIds(ids: readonly number[]): Promise<ProjectRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('projects').selectAll().where('id', 'in', [...new Set(ids)]).execute();
    return rows.map(toProject);
  }

  async findByNamespaceAndPath(namespaceId: number, path: string): Promise<ProjectRecord | undefined> {
    const row = await this.db
      .selectFrom('projects')
      .selectAll()
      .where('namespace_id', '=', namespaceId)
      .where(sql`lower(path)`, '=', path.toLowerCase())
      .executeTakeFirst();
    return row && toProject(row);
  }

  async listByNamespaces(namespaceIds: readonly number[]): Promise<ProjectRecord[]> {
    if (namespaceIds.length === 0) return [];
    const rows = await this.db.selectFrom('projects').selectAll().where('namespace_id', 'in', [...namespaceIds]).execute();
    return rows.map(toProject);
  }

  async update(id: number, changes: ProjectChanges): Promise<ProjectRecord | undefined> {
    const row = toRow<ProjectChanges>(changes);
    if (Object.keys(row).length === 0) return this.findById(id);
    const [updated] = await this.updateById(id, row);
    return updated && toProject(updated);
  }

  async repositoryStates(): Promise<ProjectRepositoryState[]> {
    const rows = await this.db.selectFrom('projects').select(['id', 'name', 'default_branch', 'pending_delete', 'pending_instance_id']).orderBy('id').execute();
    return rows.map((row) => ({
      id: Number(row.id), name: row.name, default_branch: row.default_branch, pending_delete: Boolean(row.pending_delete), pending_instance_id: row.pending_instance_id,
    }));
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('projects').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
