import type { TestCoordinator } from '../helpers/coordinator.ts';
import type { WalkWorld } from './route-walk-world.ts';
import { planningValue } from './route-walk-planning.ts';

export { makeWalkWorld, type WalkWorld } from './route-walk-world.ts';

export interface Route {
  method: string;
  url: string;
}

/** An id that names nothing: writes walked with it change nothing. */
export const UNKNOWN_ID = '999999';

const NAMED_VALUES: Record<string, string> = {
  sha: 'main',
  branch: 'main',
  name: 'main',
  tag_name: 'v1.0',
  file_path: 'README.md',
  format: 'zip',
};

/** The record of `world` a path parameter of `path` (a route pattern without /api/v4) names. */
function worldValue(path: string, name: string, world: WalkWorld): string | number | undefined {
  const area = path.split('/')[1];
  switch (name) {
    case 'id':
      if (area === 'hooks') return world.systemHookId;
      return { projects: world.projectId, groups: world.groupId, namespaces: world.groupId, users: world.userId, personal_access_tokens: world.personalTokenId, runners: world.runnerId, jobs: world.runningJobId, keys: world.userKeyId, todos: world.planning.todoId }[area];
    case 'user_id':
      return path.includes('/members/') ? world.memberId : world.userId;
    case 'group_id':
      return world.sharedGroupId;
    case 'project_id':
      return world.projectId;
    case 'key':
      return path.includes('/resource_groups/') ? world.resourceGroupKey : world.attributeKey;
    case 'sha':
      if (path.endsWith('/signature')) return world.signedSha;
      return path.includes('/blobs/') ? world.blobSha : world.headSha;
    case 'key_id':
      if (path.startsWith('/user/keys')) return world.rootKeyId;
      if (path.startsWith('/user/gpg_keys')) return path.endsWith('/revoke') ? world.rootRevokedGpgKeyId : world.rootGpgKeyId;
      if (path.startsWith('/users/:id/keys')) return world.userKeyId;
      if (path.startsWith('/users/:id/gpg_keys')) return path.endsWith('/revoke') ? world.userRevokedGpgKeyId : world.userGpgKeyId;
      return world.deployKeyId;
    case 'token_id':
      if (path.includes('/access_tokens/')) return area === 'groups' ? world.groupAccessTokenId : world.projectAccessTokenId;
      return world.impersonationTokenId;
    case 'branch':
      return world.branch;
    case 'name':
      return path.includes('/protected_tags/') ? world.protectedTag : world.protectedBranch;
    case 'tag_name':
      return path.includes('/releases/') ? world.releaseTag : world.tag;
    case 'link_id':
      return world.linkId;
    case 'package_id':
      return world.packageId;
    case 'package_file_id':
      return world.packageFileId;
    case 'package_name':
      return 'walk-pkg';
    case 'package_version':
      return '1.0.0';
    case 'file_name':
      return 'walk.bin';
    case 'trigger_id':
      return world.triggerId;
    case 'hook_id':
      return area === 'groups' ? world.groupHookId : world.hookId;
    case 'pipeline_schedule_id':
      return world.scheduleId;
    case 'environment_id':
      return world.environmentId;
    case 'pipeline_id':
      return world.pipelineId;
    case 'runner_id':
      return world.spareRunnerId;
    case 'job_id':
      if (path.endsWith('/play')) return world.manualJobId;
      return path.endsWith('/erase') ? world.erasableJobId : world.jobId;
    case 'ref_name':
      return 'main';
    case 'ref':
      return 'main';
    case 'slug':
      return 'emails-on-push';
    case 'email_id':
      return path.startsWith('/user/') ? world.rootEmailId : world.userEmailId;
    case 'provider':
      return world.identityProvider;
    default:
      return planningValue(path, name, world.planning);
  }
}

/** The path parameters of a route pattern, in order (`/projects/:id/members/:user_id` → id, user_id). */
export function pathParameters(url: string): string[] {
  return [...url.matchAll(/:([a-z_]+)/g)].map((match) => match[1]);
}

/**
 * A concrete path for a route pattern under /api/v4 (the prefix removed). With a world, ids
 * name its records (so reads find something); without one, every id is UNKNOWN_ID.
 * `override` replaces chosen parameters with raw (already encoded) text.
 */
export function samplePath(url: string, world?: WalkWorld, override: Record<string, string> = {}): string {
  const path = url.replace(/^\/api\/v4/, '');
  const named = path.replace(/:([a-z_]+)/g, (_match, name: string) => {
    if (override[name] !== undefined) return override[name];
    const value = world ? worldValue(path, name, world) : undefined;
    return encodeURIComponent(String(value ?? NAMED_VALUES[name] ?? UNKNOWN_ID));
  });
  // A trailing wildcard (`artifacts/*`) is a path inside the world's artifacts.
  return url.endsWith('/*') ? named.replace(/\*$/, override['*'] ?? world?.artifactPath ?? 'path/to/file.txt') : named;
}

/** The API routes of a coordinator (HEAD and the git/web catch-alls left out). */
export function apiRoutes(gantry: TestCoordinator): Route[] {
  return gantry.coordinator.routes.filter((route) => route.url.startsWith('/api/v4/') && route.method !== 'HEAD');
}
