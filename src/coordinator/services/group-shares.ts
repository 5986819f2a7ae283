import { accessDenied, GantryError, invalidParam } from '../../shared/errors.ts';
import type { AccessLevel, NamespaceRecord, UserRecord } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import { GUEST, OWNER, type Actor } from './permissions.ts';

export interface GroupShareInput {
  groupId: number;
  groupAccess: number;
  expiresAt?: string;
}

export interface SharedWithGroupJson {
  group_id: number;
  group_name: string;
  group_full_path: string;
  group_access_level: AccessLevel;
  expires_at: string | null;
}

/**
 * Sharing a group with another group (`POST/DELETE /groups/:id/share`): members of the invited
 * group reach the shared group and its subgroups at the lower of their level and the share's.
 * Owners of the shared group decide; they must be able to see the invited group.
 */
export class GroupSharesService {
  constructor(private readonly context: CoordinatorContext) {}

  async share(group: NamespaceRecord, actor: UserRecord, input: GroupShareInput): Promise<void> {
    const { permissions, lookup, stores } = this.context;
    if (!(await permissions.canAdminGroup(group, actor))) throw accessDenied();
    if (input.groupAccess < GUEST || input.groupAccess > OWNER || input.groupAccess % 10 !== 0) throw invalidParam('group_access', 'does not have a valid value');
    const invited = await lookup.findGroup(input.groupId);
    if (!invited || !(await permissions.canReadGroup(invited, actor))) throw new GantryError('GANTRY_E_GROUP_NOT_FOUND');
    if (invited.id === group.id) throw new GantryError('GANTRY_E_GROUP_SHARED_WITH_ITSELF', 'A group cannot be shared with itself');
    const link = await stores.groupGroupLinks.add({
      shared_group_id: group.id,
      shared_with_group_id: invited.id,
      group_access: input.groupAccess as AccessLevel,
      expires_at: input.expiresAt ?? null,
      created_at: new Date().toISOString(),
    });
    if (!link) throw new GantryError('GANTRY_E_ALREADY_EXISTS', 'The group has already been shared with this group', { resource: 'Group share' });
  }

  async unshare(group: NamespaceRecord, actor: UserRecord, invitedGroupId: number): Promise<void> {
    if (!(await this.context.permissions.canAdminGroup(group, actor))) throw accessDenied();
    if (!(await this.context.stores.groupGroupLinks.remove(group.id, invitedGroupId))) throw new GantryError('GANTRY_E_GROUP_LINK_NOT_FOUND');
  }

  /** The `shared_with_groups` of a group's details: the invited groups the caller can read. */
  async sharedWith(group: NamespaceRecord, actor: Actor): Promise<SharedWithGroupJson[]> {
    const { permissions, stores } = this.context;
    const links = await stores.groupGroupLinks.listForSharedGroups([group.id]);
    const invitedGroups = await stores.namespaces.findByIds(links.map((link) => link.shared_with_group_id));
    const readable = await permissions.readableGroupIds(invitedGroups, actor);
    const groups = new Map(invitedGroups.map((invited) => [invited.id, invited]));
    return links.flatMap((link) => {
      const invited = groups.get(link.shared_with_group_id);
      if (!invited || !readable.has(invited.id)) return [];
      return [{ group_id: invited.id, group_name: invited.name, group_full_path: invited.full_path, group_access_level: link.group_access, expires_at: link.expires_at }];
    });
  }
}
