import { sql } from '#deps/kysely';
import type { Db } from '../database.ts';
import { preparedQuery } from '../prepared.ts';
import { EVERYTHING, type TableWrites } from '../table-writes.ts';
import type { NewProject, ProjectChanges, ProjectRecord, ProjectRepositoryState, ProjectsStore } from '../../types.ts';
import { ColumnKinds } from './row-mapping.ts';

const PROJECT_KINDS = new ColumnKinds<ProjectRecord>({
  archived: 'boolean', issues_enabled: 'boolean', merge_requests_enabled: 'boolean', wiki_enabled: 'boolean', jobs_enabled: 'boolean',
  snippets_enabled: 'boolean', container_registry_enabled: 'boolean', resolve_outdated_diff_discussions: 'boolean',
  shared_runners_enabled: 'boolean', public_jobs: 'boolean', request_access_enabled: 'boolean', only_allow_merge_if_pipeline_succeeds: 'boolean',
  only_allow_merge_if_all_discussions_are_resolved: 'boolean', printing_merge_requests_link_enabled: 'boolean', lfs_enabled: 'boolean', remove_source_branch_after_merge: 'boolean',
  ci_forward_deployment_enabled: 'boolean', ci_forward_deployment_rollback_allowed: 'boolean',
  pending_delete: 'boolean', tag_list: 'json',
});

export const toProject = (row: object) => PROJECT_KINDS.toRecord(row);

/**
 * Columns that reads of other projects depend on (a fork count reads its forks'
 * `forked_from_id` and `pending_delete`, which projects a group holds reads `namespace_id`):
 * an update setting one of them changes the table as a whole for the read cache.
 */
const READ_BY_OTHER_ROWS = ['forked_from_id', 'pending_delete', 'namespace_id'] as const;

export class SqlProjectsStore implements ProjectsStore {
  private readonly byId;

  constructor(
    protected readonly db: Db,
    private readonly writes: TableWrites,
  ) {
    this.byId = preparedQuery(db, (id: number) => db.selectFrom('projects').selectAll().where('id', '=', id).compile());
  }

  async create(project: NewProject): Promise<ProjectRecord> {
    this.writes.report({ table: 'projects' });
    const inserted = await this.db
      .insertInto('projects')
      .values(PROJECT_KINDS.toColumns(project))
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
    const row = PROJECT_KINDS.toColumns(changes);
    if (Object.keys(row).length === 0) return this.findById(id);
    this.writes.report(READ_BY_OTHER_ROWS.some((column) => column in row) ? { table: 'projects' } : { table: 'projects', rowId: id });
    const updated = await this.db.updateTable('projects').set(row).where('id', '=', id).returningAll().executeTakeFirst();
    return updated && toProject(updated);
  }

  async repositoryStates(): Promise<ProjectRepositoryState[]> {
    const rows = await this.db.selectFrom('projects').select(['id', 'name', 'default_branch', 'pending_delete', 'pending_instance_id']).orderBy('id').execute();
    return rows.map((row) => ({
      id: Number(row.id), name: row.name, default_branch: row.default_branch, pending_delete: Boolean(row.pending_delete), pending_instance_id: row.pending_instance_id,
    }));
  }

  async delete(id: number): Promise<boolean> {
    this.writes.report(EVERYTHING);
    const result = await this.db.deleteFrom('projects').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
