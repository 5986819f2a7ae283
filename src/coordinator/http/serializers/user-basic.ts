import type { UserRecord } from '../../../storage/types.ts';
import { avatarUrl } from './avatar-url.ts';

/** The short user object embedded in other resources (members, authors, owners). */
export interface UserBasicJson {
  id: number;
  name: string;
  username: string;
  state: string;
  avatar_url: string | null;
  web_url: string;
}

export function userWebUrl(user: Pick<UserRecord, 'username'>, externalUrl: string): string {
  return `${externalUrl}/${encodeURIComponent(user.username)}`;
}

export function serializeUserBasic(user: UserRecord, externalUrl: string): UserBasicJson {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    state: user.state,
    avatar_url: avatarUrl(user.avatar_url, externalUrl),
    web_url: userWebUrl(user, externalUrl),
  };
}
