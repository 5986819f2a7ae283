import type { NamespaceRecord, ProjectRecord, UserRecord, Visibility } from '../../../storage/types.ts';
import { moreOpenThan } from './levels.ts';
import type { Permissions } from './permissions.ts';

/**
 * The visibility rules, in one place (GitLab's model validations, with their messages):
 *
 * - a project is never more open than its group, nor than the project it was forked from;
 * - a group is never more open than its parent, nor more closed than its subgroups or its projects;
 * - a new fork takes the most private of its source, its target namespace and the level asked for;
 * - a project moved into a more private group is narrowed to the group's level;
 * - a level the administrator restricted is for administrators only.
 *
 * Making a source project more private leaves its forks as they are (GitLab keeps them and
 * their fork link since 13.7): what was published stays published, and the fork can then
 * only become more private. Who may *see* a fork's source is decided per caller by the
 * permission module (the `forked_from_project` field).
 *
 * A personal namespace does not limit its projects (GitLab treats it as public).
 */

/** The most private of the given levels. */
export function mostPrivate(first: Visibility, ...others: Visibility[]): Visibility {
  return others.reduce((narrowest, level) => (moreOpenThan(narrowest, level) ? level : narrowest), first);
}

export interface ProjectPlace {
  namespace: NamespaceRecord;
  /** The project this one was forked from, when it still exists. */
  forkSource?: ProjectRecord | null;
}

/** Why a project may not have `visibility` where it is (`visibility_level` messages); empty when it may. */
export function projectVisibilityRefusals(visibility: Visibility, place: ProjectPlace): string[] {
  const refusals: string[] = [];
  const { namespace, forkSource } = place;
  if (namespace.kind === 'group' && moreOpenThan(visibility, namespace.visibility)) {
    refusals.push(`${visibility} is not allowed in a ${namespace.visibility} group.`);
  }
  if (forkSource && moreOpenThan(visibility, forkSource.visibility)) {
    refusals.push(`${visibility} is not allowed since the fork source project has lower visibility.`);
  }
  return refusals;
}

export interface GroupPlace {
  parent?: NamespaceRecord;
  subgroups?: readonly NamespaceRecord[];
  projectVisibilities?: readonly Visibility[];
}

/** Why a group may not have `visibility` (`visibility_level` messages); empty when it may. */
export function groupVisibilityRefusals(visibility: Visibility, place: GroupPlace): string[] {
  const { parent, subgroups = [], projectVisibilities = [] } = place;
  const refusals: string[] = [];
  if (parent && moreOpenThan(visibility, parent.visibility)) {
    refusals.push(`${visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`);
  }
  if (subgroups.some((subgroup) => moreOpenThan(subgroup.visibility, visibility))) {
    refusals.push(`${visibility} is not allowed since there are sub-groups with higher visibility.`);
  }
  if (projectVisibilities.some((projectVisibility) => moreOpenThan(projectVisibility, visibility))) {
    refusals.push(`${visibility} is not allowed since this group contains projects with higher visibility.`);
  }
  return refusals;
}

/** A new group's level when none is asked for: the instance default, narrowed to the parent's. */
export function defaultGroupVisibility(instanceDefault: Visibility, parent?: NamespaceRecord): Visibility {
  return parent ? mostPrivate(instanceDefault, parent.visibility) : instanceDefault;
}

/** A new fork's level: never more open than its source, its namespace (when a group) or what was asked for. */
export function forkVisibility(source: ProjectRecord, namespace: NamespaceRecord, requested?: Visibility): Visibility {
  const levels: Visibility[] = [source.visibility];
  if (namespace.kind === 'group') levels.push(namespace.visibility);
  if (requested !== undefined) levels.push(requested);
  return mostPrivate(source.visibility, ...levels);
}

/** The level a project keeps when it moves into `namespace`: narrowed to a more private group. */
export function visibilityAfterMove(project: ProjectRecord, namespace: NamespaceRecord): Visibility {
  return namespace.kind === 'group' ? mostPrivate(project.visibility, namespace.visibility) : project.visibility;
}

/** Levels listed in `restricted_visibility_levels` are for administrators only. */
export async function restrictedVisibilityRefusal(
  rules: { settings: { isVisibilityRestricted(visibility: Visibility): Promise<boolean> }; permissions: Pick<Permissions, 'usesRestrictedVisibilities'> },
  actor: UserRecord,
  visibility: Visibility,
): Promise<string | undefined> {
  if (rules.permissions.usesRestrictedVisibilities(actor) || !(await rules.settings.isVisibilityRestricted(visibility))) return undefined;
  return `${visibility} has been restricted by your GitLab administrator`;
}
