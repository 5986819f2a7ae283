import type { AccessLevel, MemberRecord, UserRecord } from '../../../../storage/types.ts';
import type { MemberView } from '../../../services/namespaces/members.ts';
import type { Membership } from '../../../services/namespaces/memberships.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';

export type MemberJson = UserBasicJson & { access_level: AccessLevel; expires_at: string | null };

export function serializeMember(member: MemberRecord, user: UserRecord, externalUrl: string): MemberJson {
  return { ...serializeUserBasic(user, externalUrl), access_level: member.access_level, expires_at: member.expires_at };
}

export function serializeMemberView(view: MemberView, externalUrl: string): MemberJson {
  return serializeMember(view.member, view.user, externalUrl);
}

export interface MembershipJson {
  source_id: number;
  source_name: string;
  source_type: 'Project' | 'Namespace';
  access_level: number;
}

export function serializeMembership(membership: Membership): MembershipJson {
  return { source_id: membership.sourceId, source_name: membership.sourceName, source_type: membership.sourceType, access_level: membership.accessLevel };
}
