import type { AccessLevel, MemberRecord, UserRecord } from '../../../storage/types.ts';
import { serializeUserBasic, type UserBasicJson } from './user-basic.ts';

export type MemberJson = UserBasicJson & { access_level: AccessLevel; expires_at: string | null };

export function serializeMember(member: MemberRecord, user: UserRecord, externalUrl: string): MemberJson {
  return { ...serializeUserBasic(user, externalUrl), access_level: member.access_level, expires_at: member.expires_at };
}
