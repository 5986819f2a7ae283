import type { Generated } from '#deps/kysely';

/** Tables of migration 064; part of DatabaseSchema (schema.ts). */
export interface PackagesTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  version: string;
  package_type: string;
  status: string;
  created_at: string;
  updated_at: string;
}

export interface PackageFilesTable {
  id: Generated<number>;
  package_id: number;
  file_name: string;
  /** bigint: a string on PostgreSQL. */
  size: number | string;
  file_md5: string;
  file_sha256: string;
  file_path: string;
  pipeline_id: number | null;
  created_at: string;
}
