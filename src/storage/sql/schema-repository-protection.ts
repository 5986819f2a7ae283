import type { Generated } from '#deps/kysely';

/** Tables of migration 005; part of DatabaseSchema (schema.ts). */
export interface ProtectedBranchesTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  push_access_level: number;
  merge_access_level: number;
  allow_force_push: number;
  created_at: string;
  updated_at: string;
}

/** Migration 009. */
export interface ProtectedTagsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  create_access_level: number;
  created_at: string;
}

export interface ReleasesTable {
  id: Generated<number>;
  project_id: number;
  tag_name: string;
  description: string;
  name: string | null;
  released_at: string | null;
  author_id: number | null;
  created_at: string;
  updated_at: string;
}

/** Migration 011. */
export interface ReleaseLinksTable {
  id: Generated<number>;
  release_id: number;
  name: string;
  url: string;
  filepath: string | null;
  link_type: string;
  created_at: string;
}

/** Migration 062: the milestones of each release. */
export interface MilestoneReleasesTable {
  release_id: number;
  milestone_id: number;
}

export interface DeployKeysTable {
  id: Generated<number>;
  title: string;
  key: string;
  fingerprint: string;
  /** Migration 036: unpadded base64, without `SHA256:`. */
  fingerprint_sha256: string | null;
  created_at: string;
}

export interface DeployKeysProjectsTable {
  id: Generated<number>;
  deploy_key_id: number;
  project_id: number;
  can_push: number;
  created_at: string;
}
