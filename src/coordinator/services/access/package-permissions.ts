import type { ProjectRecord } from '../../../storage/types.ts';
import { DEVELOPER, MAINTAINER, type Actor, type Permissions } from './permissions.ts';

/**
 * Who may do what with a project's package registry (GitLab's ProjectPolicy: read_package,
 * create_package, destroy_package). A CI job token stands for its job's user on the job's own
 * project, so a job of the project reads and uploads as that user does. Archived projects take
 * no uploads and no deletions.
 */
export class PackagePermissions {
  constructor(private readonly permissions: Permissions) {}

  /** `read_package`: whoever reads the project's code (public and internal projects by visibility, private from Reporter). */
  async canReadPackages(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.permissions.canReadRepository(project, actor);
  }

  /** `create_package`: Developers and up. */
  async canUploadPackages(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (!actor || project.archived) return false;
    if (actor.is_admin) return true;
    return this.permissions.projectLevelAtLeast(project, actor, DEVELOPER);
  }

  /** `destroy_package`: Maintainers and up. */
  async canDeletePackages(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (!actor || project.archived) return false;
    if (actor.is_admin) return true;
    return this.permissions.projectLevelAtLeast(project, actor, MAINTAINER);
  }
}
