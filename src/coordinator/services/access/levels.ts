import type { AccessLevel, MemberRecord, NamespaceRecord, ProjectRecord, UserRecord, Visibility } from '../../../storage/types.ts';

/**
 * The two scales every access rule compares against: membership levels and visibility
 * levels, and the visibility rule itself (what one may read without any membership).
 */

export const GUEST: AccessLevel = 10;
export const REPORTER: AccessLevel = 20;
export const DEVELOPER: AccessLevel = 30;
export const MAINTAINER: AccessLevel = 40;
export const OWNER: AccessLevel = 50;

/** Who is asking: null for anonymous requests. */
export type Actor = UserRecord | null;

/** What members belong to: a project or a group. */
export type MemberSource = { kind: 'project'; project: ProjectRecord } | { kind: 'group'; group: NamespaceRecord };

/** Where a caller may create (or fork) a project: allowed, hidden from them (404) or visible but refused (403). */
export type ProjectCreationRight = 'allowed' | 'hidden' | 'denied';

/**
 * Everything about one caller's memberships that project listings and answers need, gathered
 * once per request (services/namespaces/project-scope.ts): levels in namespaces (with their
 * subgroups, and groups shared with the caller's groups), direct project memberships and
 * projects shared with the caller's groups.
 */
export interface ActorProjectAccess {
  /** Namespace id → the caller's level there (user namespace: owner; subgroups inherit). */
  namespaceLevels: Map<number, AccessLevel>;
  /** Project id → the caller's direct membership. */
  projectMembers: Map<number, MemberRecord>;
  /** Projects shared with a group the caller belongs to. */
  sharedProjectIds: number[];
}

export interface ProjectAccess {
  /** The caller's direct membership of the project, or null. */
  projectAccess: AccessLevel | null;
  /** The caller's highest membership of the project's group and its ancestors, or null. */
  groupAccess: AccessLevel | null;
  /** The effective level (membership, group share, ownership); administrators count as owners. */
  effective: AccessLevel | null;
  /** The same from memberships alone (GitLab's `max_member_access`): an administrator who is no member has none. */
  membership: AccessLevel | null;
  /** The caller's direct membership record of the project, or null. */
  projectMember: MemberRecord | null;
}

/** GitLab's `Gitlab::Access.human_access`, lower-cased as its ID tokens' `user_access_level` claim names a level. */
export function accessLevelName(level: AccessLevel | null): string | null {
  switch (level) {
    case GUEST:
      return 'guest';
    case REPORTER:
      return 'reporter';
    case DEVELOPER:
      return 'developer';
    case MAINTAINER:
      return 'maintainer';
    case OWNER:
      return 'owner';
    default:
      return null;
  }
}

/** The higher of two levels; null counts as no access. */
export function higher(a: AccessLevel | null, b: AccessLevel | null): AccessLevel | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}

/** Every visibility level, most private first. */
export const VISIBILITIES: readonly Visibility[] = ['private', 'internal', 'public'];

/** Whether `visibility` is more open than `limit` (public > internal > private). */
export function moreOpenThan(visibility: Visibility, limit: Visibility): boolean {
  return VISIBILITIES.indexOf(visibility) > VISIBILITIES.indexOf(limit);
}

/**
 * The visibility rule: whether a project or group of this visibility is readable by the actor
 * without any membership. Public: by everyone; internal: by signed-in users who are not
 * external; private: by nobody. Per object (canReadProject, canReadGroup, ...) and, through
 * `visibilitiesReadableBy`, per list.
 */
export function readableWithoutMembership(visibility: Visibility, actor: Actor): boolean {
  if (visibility === 'public') return true;
  if (visibility === 'internal') return actor !== null && !actor.external;
  return false;
}

/** The visibility rule as a list filter (storage turns it into `visibility IN (...)`). */
export function visibilitiesReadableBy(actor: Actor): Visibility[] {
  return VISIBILITIES.filter((visibility) => readableWithoutMembership(visibility, actor));
}
