import { sql } from '#deps/kysely';
import type { Db } from '../database.ts';
import { preparedQuery } from '../prepared.ts';
import { EVERYTHING, type TableWrites } from '../table-writes.ts';
import type { GroupMove, NamespaceChanges, NamespaceListFilter, NamespaceRecord, NamespacesStore, NewNamespace, Visibility } from '../../types.ts';
import { countAll, inTransaction } from '../database.ts';
import { containsInsensitive } from './like.ts';
import { ColumnKinds } from './row-mapping.ts';

const NAMESPACE_KINDS = new ColumnKinds<NamespaceRecord>({ lfs_enabled: 'boolean', request_access_enabled: 'boolean' });
export const toNamespace = (row: object) => NAMESPACE_KINDS.toRecord(row);

export class SqlNamespacesStore implements NamespacesStore {
  private readonly byId;

  constructor(
    private readonly db: Db,
    private readonly writes: TableWrites,
  ) {
    this.byId = preparedQuery(db, (id: number) => db.selectFrom('namespaces').selectAll().where('id', '=', id).compile());
  }

  async create(namespace: NewNamespace): Promise<NamespaceRecord> {
    this.writes.report({ table: 'namespaces' });
    const inserted = await this.db.insertInto('namespaces').values(NAMESPACE_KINDS.toColumns(namespace)).returningAll().executeTakeFirstOrThrow();
    return toNamespace(inserted);
  }

  async findById(id: number): Promise<NamespaceRecord | undefined> {
    const [row] = await this.byId(id);
    return row && toNamespace(row);
  }

  async findByIds(ids: readonly number[]): Promise<NamespaceRecord[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const rows = unique.length === 1 ? await this.byId(unique[0]!) : await this.db.selectFrom('namespaces').selectAll().where('id', 'in', unique).execute();
    return rows.map(toNamespace);
  }

  async findByFullPath(fullPath: string): Promise<NamespaceRecord | undefined> {
    const row = await this.db
      .selectFrom('namespaces')
      .selectAll()
      .where(sql`lower(full_path)`, '=', fullPath.toLowerCase())
      .executeTakeFirst();
    return row && toNamespace(row);
  }

  async findUserNamespace(userId: number): Promise<NamespaceRecord | undefined> {
    const row = await this.db
      .selectFrom('namespaces')
      .selectAll()
      .where('kind', '=', 'user')
      .where('owner_id', '=', userId)
      .executeTakeFirst();
    return row && toNamespace(row);
  }

  async ancestors(id: number): Promise<NamespaceRecord[]> {
    const out: NamespaceRecord[] = [];
    let current = await this.findById(id);
    while (current?.parent_id != null) {
      const parent = await this.findById(current.parent_id);
      if (!parent) break;
      out.push(parent);
      current = parent;
    }
    return out;
  }

  async descendantIds(id: number): Promise<number[]> {
    return descendantIdsIn(this.db, id);
  }

  async children(id: number): Promise<NamespaceRecord[]> {
    const rows = await this.db.selectFrom('namespaces').selectAll().where('parent_id', '=', id).execute();
    return rows.map(toNamespace);
  }

  async listGroups(): Promise<NamespaceRecord[]> {
    const rows = await this.db.selectFrom('namespaces').selectAll().where('kind', '=', 'group').execute();
    return rows.map(toNamespace);
  }

  async list(filter: NamespaceListFilter, page: { offset: number; limit: number }): Promise<{ items: NamespaceRecord[]; total: number }> {
    if (filter.onlyIds !== undefined && filter.onlyIds.length === 0) return { items: [], total: 0 };
    let query = this.db.selectFrom('namespaces');
    if (filter.onlyIds !== undefined) query = query.where('id', 'in', [...new Set(filter.onlyIds)]);
    if (filter.search) {
      const search = filter.search;
      query = query.where((eb) => eb.or([containsInsensitive(this.db, 'name', search), containsInsensitive(this.db, 'path', search)]));
    }
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query.selectAll().orderBy('id', 'asc').offset(page.offset).limit(page.limit).execute();
    return { items: rows.map(toNamespace), total: Number(counted.total) };
  }

  async update(id: number, changes: NamespaceChanges): Promise<NamespaceRecord | undefined> {
    const row = NAMESPACE_KINDS.toColumns(changes);
    if (Object.keys(row).length === 0) return this.findById(id);
    // A subtree reads its members' `parent_id`.
    this.writes.report('parent_id' in row ? { table: 'namespaces' } : { table: 'namespaces', rowId: id });
    const updated = await this.db.updateTable('namespaces').set(row).where('id', '=', id).returningAll().executeTakeFirst();
    return updated && toNamespace(updated);
  }

  async refreshPaths(id: number): Promise<void> {
    this.writes.report({ table: 'namespaces' });
    await refreshPathsIn(this.db, id);
  }

  async moveGroup(id: number, move: GroupMove): Promise<void> {
    this.writes.report(EVERYTHING);
    await inTransaction(this.db, async (trx) => {
      await trx.updateTable('namespaces').set({ parent_id: move.parentId, full_path: move.fullPath, full_name: move.fullName, updated_at: move.updatedAt }).where('id', '=', id).execute();
      await refreshPathsIn(trx, id);
      const narrowed = move.narrowTo === null ? [] : MORE_OPEN[move.narrowTo];
      if (narrowed.length === 0) return;
      const subtree = [id, ...(await descendantIdsIn(trx, id))];
      const visibility = move.narrowTo!;
      await trx.updateTable('namespaces').set({ visibility, updated_at: move.updatedAt }).where('id', 'in', subtree).where('visibility', 'in', narrowed).execute();
      await trx.updateTable('projects').set({ visibility, updated_at: move.updatedAt }).where('namespace_id', 'in', subtree).where('visibility', 'in', narrowed).execute();
    });
  }

  async delete(id: number): Promise<boolean> {
    this.writes.report(EVERYTHING);
    const result = await this.db.deleteFrom('namespaces').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

/** The levels more open than each: what narrowing to it changes. */
const MORE_OPEN: Record<Visibility, Visibility[]> = { private: ['internal', 'public'], internal: ['public'], public: [] };

async function descendantIdsIn(db: Db, id: number): Promise<number[]> {
  const out: number[] = [];
  let frontier = [id];
  while (frontier.length > 0) {
    const rows = await db.selectFrom('namespaces').select('id').where('parent_id', 'in', frontier).execute();
    frontier = rows.map((row) => row.id);
    out.push(...frontier);
  }
  return out;
}

/** Rewrites full_path/full_name of `id` and of every namespace below it from their parents'. */
async function refreshPathsIn(db: Db, id: number): Promise<void> {
  const row = await db.selectFrom('namespaces').select(['path', 'name', 'parent_id']).where('id', '=', id).executeTakeFirst();
  if (!row) return;
  const parent = row.parent_id == null ? undefined : await db.selectFrom('namespaces').select(['full_path', 'full_name']).where('id', '=', row.parent_id).executeTakeFirst();
  const fullPath = parent ? `${parent.full_path}/${row.path}` : row.path;
  const fullName = parent ? `${parent.full_name} / ${row.name}` : row.name;
  await db.updateTable('namespaces').set({ full_path: fullPath, full_name: fullName }).where('id', '=', id).execute();
  const children = await db.selectFrom('namespaces').select('id').where('parent_id', '=', id).execute();
  for (const child of children) await refreshPathsIn(db, child.id);
}
