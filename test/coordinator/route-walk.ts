import type { TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProjectWithRepository, makeUser } from './groups-fixtures.ts';

/** Records every route answers something for: a public group and project with a repository, a user, a tag. */
export interface WalkWorld {
  groupId: number;
  projectId: number;
  userId: number;
}

/** An id that names nothing: writes walked with it change nothing. */
export const UNKNOWN_ID = '999999';

export async function makeWalkWorld(gantry: TestCoordinator): Promise<WalkWorld> {
  const group = await makeGroup(gantry, 'walk', { visibility: 'public' });
  const project = await makeProjectWithRepository(gantry, group.id, 'walked', { visibility: 'public', withReadme: true });
  const user = await makeUser(gantry, 'walker');
  const tag = await gantry.api('POST', `/projects/${project.id}/repository/tags`, { body: { tag_name: 'v1.0', ref: 'main' } });
  if (tag.status !== 201) throw new Error(`tag: ${tag.status} ${tag.text}`);
  return { groupId: group.id, projectId: project.id, userId: user.id };
}

const NAMED_VALUES: Record<string, string> = {
  sha: 'main',
  branch: 'main',
  name: 'main',
  tag_name: 'v1.0',
  file_path: 'README.md',
  format: 'zip',
};

/**
 * A concrete path for a route pattern under /api/v4 (the prefix removed). With a world, ids
 * name its records (so reads find something); without one, every id is UNKNOWN_ID.
 */
export function samplePath(url: string, world?: WalkWorld): string {
  const path = url.replace(/^\/api\/v4/, '');
  const area = path.split('/')[1];
  const ids: Record<string, string> = world
    ? {
        id: area === 'projects' ? String(world.projectId) : area === 'groups' || area === 'namespaces' ? String(world.groupId) : area === 'users' ? String(world.userId) : UNKNOWN_ID,
        project_id: String(world.projectId),
        group_id: String(world.groupId),
        user_id: String(world.userId),
      }
    : {};
  return path.replace(/:([a-z_]+)/g, (_match, name: string) => ids[name] ?? NAMED_VALUES[name] ?? UNKNOWN_ID);
}

/** The API routes of a coordinator (HEAD and the git/web catch-alls left out). */
export function apiRoutes(gantry: TestCoordinator): Array<{ method: string; url: string }> {
  return gantry.coordinator.routes.filter((route) => route.url.startsWith('/api/v4/') && route.method !== 'HEAD');
}
