import type { ProjectRecord, Visibility } from '../../src/storage/types.ts';
import type { TestCoordinator } from '../helpers/coordinator.ts';

export interface TestUser {
  id: number;
  username: string;
  token: string;
}

let tokenCounter = 0;

/** A user with a token, made through the accounts service so these tests do not depend on POST /users. */
export async function makeUser(
  gantry: TestCoordinator,
  username: string,
  options: { admin?: boolean; canCreateGroup?: boolean; external?: boolean; name?: string } = {},
): Promise<TestUser> {
  const { accounts } = gantry.coordinator.context;
  const user = await accounts.createUser({
    username,
    name: options.name ?? `User ${username}`,
    email: `${username}@example.com`,
    projects_limit: 10,
    is_admin: options.admin ?? false,
    can_create_group: options.canCreateGroup ?? true,
    external: options.external ?? false,
  });
  tokenCounter += 1;
  const token = await accounts.issueToken(user.id, 'test', `test-token-${username}-${tokenCounter}`);
  return { id: user.id, username, token };
}

/** Creates a group through the API as `token` (root by default); throws unless 201. */
export async function makeGroup(
  gantry: TestCoordinator,
  path: string,
  options: { visibility?: Visibility; parentId?: number; token?: string; name?: string } = {},
): Promise<Record<string, unknown> & { id: number; full_path: string }> {
  const body: Record<string, unknown> = { name: options.name ?? path, path, visibility: options.visibility ?? 'private' };
  if (options.parentId !== undefined) body.parent_id = options.parentId;
  const created = await gantry.api('POST', '/groups', { body, token: options.token });
  if (created.status !== 201) throw new Error(`creating group ${path}: ${created.status} ${created.text}`);
  return created.json as Record<string, unknown> & { id: number; full_path: string };
}

let runnerTokenCounter = 0;

/** A project row in the namespace, made through the store (projects CRUD belongs to another area). */
export async function makeProject(
  gantry: TestCoordinator,
  namespaceId: number,
  path: string,
  options: { visibility?: Visibility; archived?: boolean; createdAt?: string } = {},
): Promise<ProjectRecord> {
  runnerTokenCounter += 1;
  const now = options.createdAt ?? new Date().toISOString();
  return gantry.coordinator.context.stores.projects.create({
    namespace_id: namespaceId, creator_id: 1, name: path, path, description: '', default_branch: null,
    visibility: options.visibility ?? 'private', archived: options.archived ?? false, issues_enabled: true,
    merge_requests_enabled: true, wiki_enabled: true, jobs_enabled: true, snippets_enabled: true,
    container_registry_enabled: true, resolve_outdated_diff_discussions: false, shared_runners_enabled: true,
    public_jobs: true, request_access_enabled: false, only_allow_merge_if_pipeline_succeeds: false,
    only_allow_merge_if_all_discussions_are_resolved: false, printing_merge_requests_link_enabled: true, lfs_enabled: true,
    tag_list: [], forked_from_id: null, runners_token: `runners-token-${path}-${runnerTokenCounter}`, import_status: 'none',
    import_error: null, avatar_url: null, ci_config_path: null, pending_delete: false, pending_instance_id: null, created_at: now, updated_at: now,
    last_activity_at: now,
  });
}

/** A project row plus its bare repository; with `withReadme`, a README commit on `main`, its default branch (protected by the setting's rule, as on creation through the API). */
export async function makeProjectWithRepository(
  gantry: TestCoordinator,
  namespaceId: number,
  path: string,
  options: { visibility?: Visibility; withReadme?: boolean } = {},
): Promise<ProjectRecord> {
  const { context } = gantry.coordinator;
  const project = await makeProject(gantry, namespaceId, path, { visibility: options.visibility ?? 'private' });
  await context.repositories.create(project.id, {
    initializeWithReadme: options.withReadme ?? false,
    defaultBranch: 'main',
    projectName: path,
    author: { name: 'Administrator', email: 'admin@example.com' },
  });
  if (!options.withReadme) return project;
  const withDefault = (await context.stores.projects.update(project.id, { default_branch: 'main' })) ?? project;
  // As a project made with a README through the API: its new default branch gets the setting's rule.
  await context.protectedBranches.protectDefaultBranch(withDefault, 'main');
  return withDefault;
}

/** Adds a direct membership through the store. */
export async function addMember(
  gantry: TestCoordinator,
  source: { type: 'project' | 'namespace'; id: number },
  userId: number,
  accessLevel: 10 | 20 | 30 | 40 | 50,
  expiresAt: string | null = null,
): Promise<void> {
  const now = new Date().toISOString();
  await gantry.coordinator.context.stores.members.add({
    source_type: source.type, source_id: source.id, user_id: userId, access_level: accessLevel, notification_level: 3,
    expires_at: expiresAt, created_by_id: null, created_at: now, updated_at: now,
  });
}
