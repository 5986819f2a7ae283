import type { ProjectRecord } from '../../../storage/types.ts';
import { DEVELOPER, type Actor, type Permissions } from './permissions.ts';

/**
 * Who may see and do what with merge requests (GitLab's ProjectPolicy: read_merge_request,
 * create_merge_request_in/_from, update_merge_request, admin_merge_request,
 * destroy_merge_request). Branch protection (who may merge into a branch) is the protected
 * branches rule, asked by the merge service.
 */
export class MergeRequestPermissions {
  constructor(private readonly permissions: Permissions) {}

  /** `read_merge_request`: whoever reads the project while its merge requests are enabled. */
  async canReadMergeRequests(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return project.merge_requests_enabled && this.permissions.canReadProject(project, actor);
  }

  /** `admin_merge_request` (time tracking …): Developers and up, not on an archived project. */
  async canAdminMergeRequests(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return !project.archived && this.permissions.projectLevelAtLeast(project, actor, DEVELOPER);
  }
}
