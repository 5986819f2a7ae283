import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import { DEVELOPER, OWNER, REPORTER, type Actor, type Permissions } from './permissions.ts';

/**
 * Who may see and do what with merge requests (GitLab's ProjectPolicy: read_merge_request,
 * create_merge_request_in/_from, update_merge_request, admin_merge_request,
 * destroy_merge_request). Branch protection (who may merge into a branch) is the protected
 * branches rule, asked by the merge service. Archived projects take no writes.
 */
export class MergeRequestPermissions {
  constructor(private readonly permissions: Permissions) {}

  /** `read_merge_request`: whoever reads the project while its merge requests are enabled. */
  async canReadMergeRequests(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return project.merge_requests_enabled && this.permissions.canReadProject(project, actor);
  }

  /** `create_merge_request_in`: anyone signed in who reads the target project's merge requests. */
  async canCreateMergeRequestIn(target: ProjectRecord, actor: Actor): Promise<boolean> {
    if (!actor || target.archived) return false;
    return this.canReadMergeRequests(target, actor);
  }

  /** `create_merge_request_from`: push rights (Developer and up) on the source project, whose merge requests are enabled. */
  async canCreateMergeRequestFrom(source: ProjectRecord, actor: Actor): Promise<boolean> {
    if (!actor || source.archived || !source.merge_requests_enabled) return false;
    return this.permissions.projectLevelAtLeast(source, actor, DEVELOPER);
  }

  /**
   * `admin_merge_request`: Developers and up edit any request and set its labels, milestone,
   * assignees, reviewers and lock (from anyone else those parameters are ignored, as GitLab does).
   */
  async canAdminMergeRequests(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (!actor || project.archived) return false;
    return this.permissions.projectLevelAtLeast(project, actor, DEVELOPER);
  }

  /** `update_merge_request`: its author (while they may still open requests there), or whoever administers them. */
  async canUpdateMergeRequest(project: ProjectRecord, request: { author_id: number }, actor: Actor): Promise<boolean> {
    if (await this.canAdminMergeRequests(project, actor)) return true;
    return actor !== null && request.author_id === actor.id && (await this.canCreateMergeRequestIn(project, actor));
  }

  /** For GitLab's `first_contribution`: whether a request's author is more than a Guest of the project (administrators count). */
  async isReporterOrAbove(project: ProjectRecord, author: UserRecord): Promise<boolean> {
    return this.permissions.projectLevelAtLeast(project, author, REPORTER);
  }

  /** `destroy_merge_request`: Owners (administrators too). */
  async canDeleteMergeRequest(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.permissions.projectLevelAtLeast(project, actor, OWNER);
  }
}
