/**
 * `runner exec`'s projects in its local coordinator: the working tree's, at the path its remote
 * has on the server (project-identity.ts), and those of its submodules (submodules.ts). Each
 * project's bare repository borrows an object database of yours (git alternates) instead of
 * receiving a push: a push by path costs four git processes and a copy of every object, over
 * HTTP also the coordinator's push hooks. The jobs still fetch from the projects over git HTTP,
 * as from a server.
 */
import type { ProjectRecord } from '../storage/types.ts';
import { lendObjects } from './git.ts';
import { FALLBACK_PROJECT_PATH, type ProjectIdentity } from './project-identity.ts';
import { loadStack, postToLocalApi, setSnapshotRefs, type LocalCoordinator } from './session.ts';
import type { Snapshot } from './git.ts';

/**
 * The working tree's project, its repository lent the user's object database, with no refs
 * yet: it needs no snapshot, so it is made while the snapshot is taken (setSnapshotRefs follows).
 */
export async function createLocalProject(local: LocalCoordinator, source: { root: string; identity: ProjectIdentity; defaultBranch: string }): Promise<ProjectRecord> {
  // Groups the coordinator refuses (a reserved name): the project in root's namespace; a path it refuses: `project` there.
  const project =
    (await createProjectAt(local, source.identity, source.defaultBranch)) ??
    (source.identity.groups.length > 0 ? await createProjectAt(local, { groups: [], path: source.identity.path }, source.defaultBranch) : null) ??
    (await createProjectAt(local, { groups: [], path: FALLBACK_PROJECT_PATH }, source.defaultBranch));
  if (!project) throw new Error('the local coordinator refused the project');
  local.lentObjects = await lendObjects(source.root, await repositoryPath(local, project));
  return project;
}

/** A project at `identity` (its groups found or made), or null when the coordinator refuses the path or it is taken. */
export async function createProjectAt(local: LocalCoordinator, identity: ProjectIdentity, defaultBranch: string, visibility: 'private' | 'public' = 'private'): Promise<ProjectRecord | null> {
  const namespace = await localNamespace(local, identity.groups);
  if (namespace === undefined) return null;
  const answer = await postToLocalApi(local, '/projects', {
    name: identity.path, path: identity.path, default_branch: defaultBranch, visibility, ...(namespace === null ? {} : { namespace_id: namespace }),
  });
  if (answer.status === 400) return null;
  if (!answer.ok) throw new Error(`the local coordinator refused the project: ${answer.status} ${answer.text}`);
  const { id } = JSON.parse(answer.text) as { id: number };
  const project = await local.coordinator.context.stores.projects.findById(id);
  if (!project) throw new Error('the local project is gone');
  return project;
}

/** Where the project's bare repository is on disk. */
export async function repositoryPath(local: LocalCoordinator, project: ProjectRecord): Promise<string> {
  const { GitRepositoryManager } = await loadStack();
  const { repositories } = local.coordinator.context;
  if (!(repositories instanceof GitRepositoryManager)) throw new Error('the local coordinator keeps its repositories elsewhere than on disk');
  return repositories.repositoryPath(project.id);
}

/**
 * The namespace of `groups` (from the top; found, else made; a first group named as root is
 * root's own namespace): its id, null for root's namespace, undefined when the coordinator
 * refuses a group.
 */
async function localNamespace(local: LocalCoordinator, groups: readonly string[]): Promise<number | null | undefined> {
  if (groups.length === 0 || (groups.length === 1 && groups[0] === local.root.username)) return null;
  const { namespaces } = local.coordinator.context.stores;
  let parentId: number | null = null;
  for (let depth = 1; depth <= groups.length; depth += 1) {
    const group = groups[depth - 1]!;
    const existing = await namespaces.findByFullPath(groups.slice(0, depth).join('/'));
    if (existing) {
      parentId = existing.id;
      continue;
    }
    // Public, so that a public project (a submodule's) may be made in it; this coordinator serves you alone.
    const answer = await postToLocalApi(local, '/groups', { name: group, path: group, visibility: 'public', ...(parentId === null ? {} : { parent_id: parentId }) });
    if (!answer.ok) return undefined;
    parentId = (JSON.parse(answer.text) as { id: number }).id;
  }
  return parentId;
}

/** A project holding `sha` on its default branch and on the ref asked for (a branch or a tag). */
export async function pushProject(
  local: LocalCoordinator,
  source: { root: string; snapshot: Snapshot; identity: ProjectIdentity; defaultBranch: string; ref: { name: string; kind: 'branch' | 'tag' } },
): Promise<ProjectRecord> {
  const project = await createLocalProject(local, source);
  await setSnapshotRefs(local, project, source);
  return project;
}
