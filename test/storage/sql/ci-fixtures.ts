import { randomBytes } from 'node:crypto';
import { openDatabase, type OpenedDatabase } from '../../../src/storage/sql/database.ts';
import { migrateToLatest } from '../../../src/storage/sql/migrate.ts';
import { createSqlStores, type SqlStores } from '../../../src/storage/sql/stores/index.ts';
import type { NewJob } from '../../../src/storage/types-ci-jobs.ts';
import type { PipelineRecord } from '../../../src/storage/types-ci.ts';
import type { NamespaceRecord, ProjectRecord, UserRecord } from '../../../src/storage/types.ts';
import { testDatabase } from '../../helpers/database.ts';

export const NOW = '2026-11-22T08:26:31.123Z';
export const SHA = 'a'.repeat(40);

export interface CiTestDatabase {
  opened: OpenedDatabase;
  stores: SqlStores;
  close(): Promise<void>;
}

/** A migrated database (SQLite in memory, or a fresh PostgreSQL database with GANTRY_TEST_DATABASE_URL). */
export async function openCiTestDatabase(): Promise<CiTestDatabase & { url: string }> {
  const database = await testDatabase();
  const opened = openDatabase(database.url);
  await migrateToLatest(opened.db, opened.dialect);
  return {
    url: database.url,
    opened,
    stores: createSqlStores(opened.db),
    async close() {
      await opened.close();
      await database.drop();
    },
  };
}

export async function createUser(stores: SqlStores, username: string): Promise<UserRecord> {
  return stores.users.create({
    username, name: `${username} name`, email: `${username}@example.com`, password_digest: null, state: 'active', is_admin: false,
    is_ghost: false, bio: '', location: '', messenger_id: '', network_profile: '', microblog_account: '', website_url: '',
    organization: '', projects_limit: 10, can_create_group: true, external: false, extern_uid: null, provider: null,
    avatar_url: null, theme_id: 1, color_scheme_id: 1, two_factor_enabled: false, password_expires_at: null,
    created_at: NOW, confirmed_at: NOW, last_sign_in_at: null, current_sign_in_at: null, last_activity_on: null,
  });
}

export async function createGroup(stores: SqlStores, path: string, parent?: NamespaceRecord): Promise<NamespaceRecord> {
  const fullPath = parent ? `${parent.full_path}/${path}` : path;
  return stores.namespaces.create({
    kind: 'group', name: path, path, full_path: fullPath, full_name: fullPath, parent_id: parent?.id ?? null, owner_id: null,
    description: '', visibility: 'private', lfs_enabled: true, request_access_enabled: false, avatar_url: null, created_at: NOW, updated_at: NOW,
  });
}

export async function createProject(stores: SqlStores, namespace: NamespaceRecord, path: string, changes: Partial<ProjectRecord> = {}): Promise<ProjectRecord> {
  return stores.projects.create({
    namespace_id: namespace.id, creator_id: 1, name: path, path, description: '', default_branch: 'main', visibility: 'private',
    archived: false, issues_enabled: true, merge_requests_enabled: true, wiki_enabled: true, jobs_enabled: true, snippets_enabled: true,
    container_registry_enabled: false, resolve_outdated_diff_discussions: false, shared_runners_enabled: true, public_jobs: true,
    request_access_enabled: false, only_allow_merge_if_pipeline_succeeds: false, only_allow_merge_if_all_discussions_are_resolved: false,
    printing_merge_requests_link_enabled: true, lfs_enabled: true, tag_list: [], forked_from_id: null,
    runners_token: randomBytes(10).toString('hex'), import_status: 'none', import_error: null, avatar_url: null, ci_config_path: null,
    pending_delete: false, pending_instance_id: null, created_at: NOW, updated_at: NOW, last_activity_at: NOW, ...changes,
  });
}

export async function createPipeline(stores: SqlStores, project: ProjectRecord, changes: Partial<PipelineRecord> = {}): Promise<PipelineRecord> {
  return stores.pipelines.create({ project_id: project.id, ref: 'main', sha: SHA, source: 'push', status: 'created', created_at: NOW, ...changes });
}

/** A build of the pipeline; `overrides` win. */
export function buildJob(pipeline: PipelineRecord, name: string, overrides: Partial<NewJob> = {}): NewJob {
  return {
    pipeline_id: pipeline.id, project_id: pipeline.project_id, stage: 'test', stage_idx: 1, name, type: 'build', status: 'created',
    when: 'on_success', allow_failure: false, ref: pipeline.ref, sha: pipeline.sha, created_at: NOW, protected: pipeline.protected,
    ...overrides,
  };
}
