import { accessDenied, GantryError, invalidParam } from '../../../shared/errors.ts';
import type { AccessLevel, UserRecord } from '../../../storage/types.ts';
import type { GroupGroupLinksStore } from '../../../storage/types-projects.ts';
import type { GroupDetails, GroupsService } from './groups.ts';
import type { Lookup } from '../access/lookup.ts';
import { GUEST, OWNER, type Permissions } from '../access/permissions.ts';
import type { ShareInput } from './project-shares.ts';

export interface GroupSharesServiceDeps {
  groupLinks: Pick<GroupGroupLinksStore, 'add' | 'remove'>;
  lookup: Pick<Lookup, 'readableGroup'>;
  permissions: Pick<Permissions, 'canShareGroup'>;
  groups: Pick<GroupsService, 'readable' | 'details'>;
}

/**
 * Sharing a group with another group (`POST/DELETE /groups/:id/share`): members of the invited
 * group reach the shared group and its subgroups at the lower of their level and the share's.
 * Owners of the shared group decide; they must be able to see the invited group.
 */
export class GroupSharesService {
  constructor(private readonly deps: GroupSharesServiceDeps) {}

  /** Shares the readable group `ref` with another group; answers the shared group's details. */
  async share(ref: string, actor: UserRecord, input: ShareInput): Promise<GroupDetails> {
    const { permissions, lookup, groupLinks, groups } = this.deps;
    const group = await groups.readable(ref, actor);
    if (!(await permissions.canShareGroup(group, actor))) throw accessDenied();
    if (input.groupAccess < GUEST || input.groupAccess > OWNER || input.groupAccess % 10 !== 0) throw invalidParam('group_access', 'does not have a valid value');
    const invited = await lookup.readableGroup(input.groupId, actor);
    if (invited.id === group.id) throw new GantryError('GANTRY_E_GROUP_SHARED_WITH_ITSELF', 'A group cannot be shared with itself');
    const link = await groupLinks.add({
      shared_group_id: group.id,
      shared_with_group_id: invited.id,
      group_access: input.groupAccess as AccessLevel,
      expires_at: input.expiresAt ?? null,
      created_at: new Date().toISOString(),
    });
    if (!link) throw new GantryError('GANTRY_E_ALREADY_EXISTS', 'The group has already been shared with this group', { resource: 'Group share' });
    return groups.details(group, actor);
  }

  async unshare(ref: string, actor: UserRecord, invitedGroupId: number): Promise<void> {
    const group = await this.deps.groups.readable(ref, actor);
    if (!(await this.deps.permissions.canShareGroup(group, actor))) throw accessDenied();
    if (!(await this.deps.groupLinks.remove(group.id, invitedGroupId))) throw new GantryError('GANTRY_E_GROUP_LINK_NOT_FOUND');
  }
}
