import type { NamespaceRecord, ProjectRecord } from '../../../storage/types.ts';
import type { ConfidentialAccess } from '../../../storage/types-planning.ts';
import { GUEST, MAINTAINER, OWNER, REPORTER, type Actor, type ActorProjectAccess, type Permissions } from './permissions.ts';

/**
 * Who may see and do what with issues, labels and milestones (GitLab's ProjectPolicy and
 * GroupPolicy: read_issue, create_issue, admin_issue, destroy_issue, read_confidential_issues,
 * admin_label, admin_milestone). Signed-in callers who read a public or internal project
 * without membership count as Guests there, as in GitLab.
 */
export class PlanningPermissions {
  constructor(private readonly permissions: Permissions) {}

  /** `read_issue`: whoever reads the project while its issues are enabled. */
  async canReadIssues(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return project.issues_enabled && this.permissions.canReadProject(project, actor);
  }

  /** `read_confidential_issues`: Reporters and up (administrators too). */
  async seesConfidentialIssues(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.permissions.projectLevelAtLeast(project, actor, REPORTER);
  }

  /** One issue: a confidential one only to Reporters and up, its author and its assignees. */
  async canSeeIssue(project: ProjectRecord, issue: { confidential: boolean; author_id: number }, assigneeIds: readonly number[], actor: Actor): Promise<boolean> {
    if (!(await this.canReadIssues(project, actor))) return false;
    if (!issue.confidential) return true;
    if (actor && (issue.author_id === actor.id || assigneeIds.includes(actor.id))) return true;
    return this.seesConfidentialIssues(project, actor);
  }

  /** `create_issue`: anyone signed in who reads the project (not archived, issues enabled). */
  async canCreateIssue(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (!actor || project.archived) return false;
    return this.canReadIssues(project, actor);
  }

  /**
   * `admin_issue`: Reporters and up edit any issue and set its labels, milestone, assignees,
   * due date and lock (from anyone else, those parameters are ignored, as GitLab does).
   */
  async canAdminIssues(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (project.archived) return false;
    return this.permissions.projectLevelAtLeast(project, actor, REPORTER);
  }

  /** `update_issue`: its author (while they may still create issues there), or whoever administers issues. */
  async canUpdateIssue(project: ProjectRecord, issue: { author_id: number }, actor: Actor): Promise<boolean> {
    if (await this.canAdminIssues(project, actor)) return true;
    return actor !== null && issue.author_id === actor.id && (await this.canCreateIssue(project, actor));
  }

  /**
   * `award_emoji` on an issue the caller sees (or one of its notes): anyone signed in, unless
   * the project is archived, or the discussion is locked and they are not a member.
   */
  async canAwardEmoji(project: ProjectRecord, issue: { discussion_locked: boolean | null }, actor: Actor): Promise<boolean> {
    if (!actor || project.archived) return false;
    return !issue.discussion_locked || this.permissions.projectLevelAtLeast(project, actor, GUEST);
  }

  /** `destroy_issue`: Owners (administrators too). */
  async canDeleteIssue(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.permissions.projectLevelAtLeast(project, actor, OWNER);
  }

  /** An issue's `created_at` may be given by administrators and the project's Owners. */
  async canBackdateIssue(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.permissions.projectLevelAtLeast(project, actor, OWNER);
  }

  /**
   * Confidential issues a list may show besides the caller's own and those assigned to them:
   * null for administrators (all); otherwise the projects and namespaces where the caller is
   * Reporter or above. Projects shared with the caller's groups are left out (their level is
   * not gathered): there only their own confidential issues show.
   */
  confidentialAccess(actor: Actor, access: ActorProjectAccess): ConfidentialAccess | null {
    if (actor?.is_admin) return null;
    if (!actor) return { userId: null, projectIds: [], namespaceIds: [] };
    const namespaceIds = [...access.namespaceLevels].flatMap(([id, level]) => (level >= REPORTER ? [id] : []));
    const projectIds = [...access.projectMembers.values()].flatMap((member) => (member.access_level >= REPORTER ? [member.source_id] : []));
    return { userId: actor.id, projectIds, namespaceIds };
  }

  /** Confidential issues of one project: null when the caller sees them all there. */
  async confidentialAccessIn(project: ProjectRecord, actor: Actor): Promise<ConfidentialAccess | null> {
    if (await this.seesConfidentialIssues(project, actor)) return null;
    return { userId: actor?.id ?? null, projectIds: [], namespaceIds: [] };
  }

  /** `read_internal_note`, `mark_note_as_internal`: Reporters and up (administrators too). */
  async canReadInternalNotes(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.permissions.projectLevelAtLeast(project, actor, REPORTER);
  }

  /**
   * `create_note` on an issue the caller sees: anyone signed in (not on an archived project);
   * a locked discussion takes notes from the project's members only (direct or inherited;
   * administrators count as members).
   */
  async canCreateNote(project: ProjectRecord, issue: { discussion_locked: boolean | null }, actor: Actor): Promise<boolean> {
    if (!actor || project.archived) return false;
    return !issue.discussion_locked || (await this.isProjectMember(project, actor));
  }

  /**
   * `admin_note` (edit, delete): its author or Maintainers and up; never a system note, an
   * internal note the caller may not read, a note of an archived project, or (from a
   * non-member) a note of a locked discussion.
   */
  async canAdminNote(project: ProjectRecord, issue: { discussion_locked: boolean | null }, note: { author_id: number; system: boolean; internal: boolean }, actor: Actor): Promise<boolean> {
    if (!actor || note.system || project.archived) return false;
    if (note.internal && !(await this.canReadInternalNotes(project, actor))) return false;
    if (issue.discussion_locked && !(await this.isProjectMember(project, actor))) return false;
    return note.author_id === actor.id || this.permissions.projectLevelAtLeast(project, actor, MAINTAINER);
  }

  /** `set_note_created_at`: administrators and the project's Owners. */
  async canBackdateNote(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.permissions.projectLevelAtLeast(project, actor, OWNER);
  }

  private async isProjectMember(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return (await this.permissions.projectAccess(project, actor)).effective !== null;
  }

  /** `read_label`, `read_milestone`: whoever reads the project or group. */
  async canReadProjectPlanning(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.permissions.canReadProject(project, actor);
  }

  async canReadGroupPlanning(group: NamespaceRecord, actor: Actor): Promise<boolean> {
    return this.permissions.canReadGroup(group, actor);
  }

  /** `admin_label`, `admin_milestone`: Reporters and up of the project or group. */
  async canAdminProjectPlanning(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (project.archived) return false;
    return this.permissions.projectLevelAtLeast(project, actor, REPORTER);
  }

  async canAdminGroupPlanning(group: NamespaceRecord, actor: Actor): Promise<boolean> {
    return this.permissions.groupLevelAtLeast(group, actor, REPORTER);
  }
}
