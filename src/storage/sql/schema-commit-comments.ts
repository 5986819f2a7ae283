import type { Generated } from '#deps/kysely';

/** Table of migration 004; part of DatabaseSchema (schema.ts). */
export interface CommitCommentsTable {
  id: Generated<number>;
  project_id: number;
  commit_id: string;
  author_id: number;
  note: string;
  path: string | null;
  line: number | null;
  line_type: string | null;
  created_at: string;
}
