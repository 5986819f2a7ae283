import { GantryError, invalidParam } from '../../../shared/errors.ts';
import type { AccessLevel, NamespacesStore, ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { ProjectGroupLinkRecord, ProjectGroupLinksStore } from '../../../storage/types-projects.ts';
import type { Lookup } from '../access/lookup.ts';
import { DEVELOPER, GUEST, MAINTAINER, REPORTER } from '../access/permissions.ts';

/** A share grants at most maintainer, as in GitLab (owner is not a share level). */
const SHARE_LEVELS: readonly number[] = [GUEST, REPORTER, DEVELOPER, MAINTAINER];

/** Sharing a project or a group with a group: the group, the level it gets, until when. */
export interface ShareInput {
  groupId: number;
  groupAccess: number;
  expiresAt?: string;
}

export interface ProjectSharesDeps {
  projectGroupLinks: Pick<ProjectGroupLinksStore, 'add' | 'remove'>;
  namespaces: Pick<NamespacesStore, 'ancestors'>;
  lookup: Pick<Lookup, 'readableGroup'>;
}

/**
 * Sharing a project with a group (`POST/DELETE /projects/:id/share`): the group's members
 * then reach the project at the lower of their group level and the share's level. The caller
 * administers the project (checked by the caller) and must be able to read the group.
 */
export class ProjectSharesService {
  constructor(private readonly deps: ProjectSharesDeps) {}

  async share(project: ProjectRecord, actor: UserRecord, input: ShareInput): Promise<ProjectGroupLinkRecord> {
    const { lookup, namespaces, projectGroupLinks } = this.deps;
    if (!SHARE_LEVELS.includes(input.groupAccess)) throw invalidParam('group_access', 'does not have a valid value');
    const group = await lookup.readableGroup(input.groupId, actor);
    const enclosing = [project.namespace_id, ...(await namespaces.ancestors(project.namespace_id)).map((namespace) => namespace.id)];
    if (enclosing.includes(group.id)) throw new GantryError('GANTRY_E_PROJECT_SHARED_WITH_OWN_GROUP', 'Project cannot be shared with the group it is in or one of its ancestors.');
    const link = await projectGroupLinks.add({
      project_id: project.id,
      group_id: group.id,
      group_access: input.groupAccess as AccessLevel,
      expires_at: input.expiresAt ?? null,
      created_at: new Date().toISOString(),
    });
    if (!link) throw new GantryError('GANTRY_E_ALREADY_EXISTS', 'Group already shared with this group', { resource: 'Project share' });
    return link;
  }

  async unshare(project: ProjectRecord, groupId: number): Promise<void> {
    if (!(await this.deps.projectGroupLinks.remove(project.id, groupId))) throw new GantryError('GANTRY_E_GROUP_LINK_NOT_FOUND');
  }
}
