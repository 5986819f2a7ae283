import { columnTypes, withId, type DialectMigration } from './helpers.ts';

/**
 * The package registry (GitLab's packages_packages and packages_package_files), generic
 * packages for now: a package is a name and version in a project; its files keep their bytes
 * under `<data dir>/packages/` (`file_path`). A file name may repeat in one package (the newest
 * is the one downloaded). Deleting a project drops its packages' rows; its files go with it
 * (services/namespaces/projects.ts).
 */
export const packages: DialectMigration = {
  async up(db, dialect) {
    const types = columnTypes(dialect);
    await withId(db.schema.createTable('packages'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('package_type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('packages_project_type_name_version', ['project_id', 'package_type', 'name', 'version'])
      .execute();
    await withId(db.schema.createTable('package_files'), dialect)
      .addColumn('package_id', 'integer', (c) => c.notNull().references('packages.id').onDelete('cascade'))
      .addColumn('file_name', 'text', (c) => c.notNull())
      .addColumn('size', types.bigint, (c) => c.notNull())
      .addColumn('file_md5', 'text', (c) => c.notNull())
      .addColumn('file_sha256', 'text', (c) => c.notNull())
      .addColumn('file_path', 'text', (c) => c.notNull())
      .addColumn('pipeline_id', 'integer', (c) => c.references('ci_pipelines.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('package_files_package_name').on('package_files').columns(['package_id', 'file_name']).execute();
    await db.schema.createIndex('package_files_pipeline').on('package_files').column('pipeline_id').execute();
  },
};
