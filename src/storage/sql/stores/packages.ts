import type { Selectable } from '#deps/kysely';
import { isUniqueViolation } from '../../errors.ts';
import type { PackageFileRecord, PackageListQuery, PackageRecord, PackagesStore, PackageStatus, PackageType } from '../../types-packages.ts';
import { countAll, type Db } from '../database.ts';
import type { PackageFilesTable, PackagesTable } from '../schema-packages.ts';
import { containsInsensitive } from './like.ts';

function toPackage(row: Selectable<PackagesTable>): PackageRecord {
  return { ...row, package_type: row.package_type as PackageType, status: row.status as PackageStatus };
}

function toFile(row: Selectable<PackageFilesTable>): PackageFileRecord {
  return { ...row, size: Number(row.size) };
}

const ORDER_COLUMNS = { created_at: 'created_at', name: 'name', version: 'version', type: 'package_type' } as const;

export class SqlPackagesStore implements PackagesStore {
  constructor(private readonly db: Db) {}

  async list(query: PackageListQuery): Promise<{ items: PackageRecord[]; total: number }> {
    let select = this.db.selectFrom('packages').where('project_id', '=', query.projectId);
    if (query.packageType !== undefined) select = select.where('package_type', '=', query.packageType);
    if (query.name !== undefined) select = select.where(containsInsensitive(this.db, 'name', query.name));
    if (query.version !== undefined) select = select.where('version', '=', query.version);
    select = query.status === undefined ? select.where('status', '!=', 'hidden') : select.where('status', '=', query.status);
    const counted = await select.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await select
      .selectAll()
      .orderBy(ORDER_COLUMNS[query.orderBy], query.sort)
      .orderBy('id', query.sort)
      .offset(query.offset)
      .limit(query.limit)
      .execute();
    return { items: rows.map(toPackage), total: Number(counted.total) };
  }

  async find(projectId: number, id: number): Promise<PackageRecord | undefined> {
    const row = await this.db.selectFrom('packages').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
    return row ? toPackage(row) : undefined;
  }

  async findByName(projectId: number, type: PackageType, name: string, version: string): Promise<PackageRecord | undefined> {
    const row = await this.db
      .selectFrom('packages')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('package_type', '=', type)
      .where('name', '=', name)
      .where('version', '=', version)
      .executeTakeFirst();
    return row ? toPackage(row) : undefined;
  }

  async findOrCreate(fields: Pick<PackageRecord, 'project_id' | 'package_type' | 'name' | 'version'> & { status?: PackageStatus; now: string }): Promise<PackageRecord> {
    const { now, status, ...key } = fields;
    for (let attempt = 0; ; attempt += 1) {
      const found = await this.findByName(key.project_id, key.package_type, key.name, key.version);
      if (found) {
        if (status === undefined || status === found.status) return found;
        const row = await this.db.updateTable('packages').set({ status, updated_at: now }).where('id', '=', found.id).returningAll().executeTakeFirstOrThrow();
        return toPackage(row);
      }
      try {
        const row = await this.db
          .insertInto('packages')
          .values({ ...key, status: status ?? 'default', created_at: now, updated_at: now })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toPackage(row);
      } catch (error) {
        // Two uploads to a new package at once: the other made it, use that one.
        if (!isUniqueViolation(error) || attempt > 0) throw error;
      }
    }
  }

  async delete(id: number): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      const files = await trx.selectFrom('package_files').select('file_path').where('package_id', '=', id).execute();
      await trx.deleteFrom('package_files').where('package_id', '=', id).execute();
      await trx.deleteFrom('packages').where('id', '=', id).execute();
      return files.map((file) => file.file_path);
    });
  }

  async listFiles(packageId: number, page?: { offset: number; limit: number }): Promise<{ items: PackageFileRecord[]; total: number }> {
    const select = this.db.selectFrom('package_files').where('package_id', '=', packageId);
    const counted = await select.select(countAll().as('total')).executeTakeFirstOrThrow();
    let rows = select.selectAll().orderBy('id');
    if (page) rows = rows.offset(page.offset).limit(page.limit);
    return { items: (await rows.execute()).map(toFile), total: Number(counted.total) };
  }

  async newestFile(packageId: number, fileName: string): Promise<PackageFileRecord | undefined> {
    const row = await this.db
      .selectFrom('package_files')
      .selectAll()
      .where('package_id', '=', packageId)
      .where('file_name', '=', fileName)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? toFile(row) : undefined;
  }

  async findFile(packageId: number, id: number): Promise<PackageFileRecord | undefined> {
    const row = await this.db.selectFrom('package_files').selectAll().where('package_id', '=', packageId).where('id', '=', id).executeTakeFirst();
    return row ? toFile(row) : undefined;
  }

  async addFile(file: Omit<PackageFileRecord, 'id'>): Promise<PackageFileRecord> {
    return toFile(await this.db.insertInto('package_files').values(file).returningAll().executeTakeFirstOrThrow());
  }

  async deleteFile(id: number): Promise<void> {
    await this.db.deleteFrom('package_files').where('id', '=', id).execute();
  }

  async pipelineIds(packageIds: readonly number[]): Promise<Map<number, number[]>> {
    const result = new Map<number, number[]>();
    if (packageIds.length === 0) return result;
    const rows = await this.db
      .selectFrom('package_files')
      .select(['package_id', 'pipeline_id'])
      .where('package_id', 'in', [...new Set(packageIds)])
      .where('pipeline_id', 'is not', null)
      .orderBy('id', 'desc')
      .execute();
    for (const row of rows) {
      const ids = result.get(row.package_id) ?? [];
      if (row.pipeline_id !== null && !ids.includes(row.pipeline_id)) ids.push(row.pipeline_id);
      result.set(row.package_id, ids);
    }
    return result;
  }
}
