import type { UserRecord } from '../../../../storage/types.ts';
import type { GpgKeyRecord, SshKeyRecord } from '../../../../storage/types-users.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';

/** `GET /users/:id` for non-administrators: the basic fields plus the public profile. */
export interface UserPublicJson extends UserBasicJson {
  created_at: string;
  bio: string;
  location: string;
  public_email: string;
  skype: string;
  linkedin: string;
  twitter: string;
  messenger_id: string;
  network_profile: string;
  microblog_account: string;
  website_url: string;
  organization: string;
}

/** Administrators and `GET /user`: everything about the account. */
export interface UserAdminJson extends UserPublicJson {
  email: string;
  is_admin: boolean;
  last_sign_in_at: string | null;
  confirmed_at: string | null;
  current_sign_in_at: string | null;
  last_activity_on: string | null;
  theme_id: number;
  color_scheme_id: number;
  projects_limit: number;
  identities: { provider: string; extern_uid: string }[];
  can_create_group: boolean;
  can_create_project: boolean;
  two_factor_enabled: boolean;
  external: boolean;
  private_profile: boolean;
}

export function serializeUserPublic(user: UserRecord, externalUrl: string): UserPublicJson {
  return {
    ...serializeUserBasic(user, externalUrl),
    created_at: user.created_at,
    bio: user.bio,
    location: user.location,
    public_email: '',
    // GitLab's historical names of the three account fields.
    skype: user.messenger_id,
    linkedin: user.network_profile,
    twitter: user.microblog_account,
    messenger_id: user.messenger_id,
    network_profile: user.network_profile,
    microblog_account: user.microblog_account,
    website_url: user.website_url,
    organization: user.organization,
  };
}

export function serializeUserAdmin(user: UserRecord, externalUrl: string): UserAdminJson {
  return {
    ...serializeUserPublic(user, externalUrl),
    email: user.email,
    is_admin: user.is_admin,
    last_sign_in_at: user.last_sign_in_at,
    confirmed_at: user.confirmed_at,
    current_sign_in_at: user.current_sign_in_at,
    last_activity_on: user.last_activity_on,
    theme_id: user.theme_id,
    color_scheme_id: user.color_scheme_id,
    projects_limit: user.projects_limit,
    identities: user.provider && user.extern_uid ? [{ provider: user.provider, extern_uid: user.extern_uid }] : [],
    can_create_group: user.can_create_group,
    can_create_project: user.projects_limit > 0 && !user.external,
    two_factor_enabled: user.two_factor_enabled,
    external: user.external,
    private_profile: false,
  };
}

export interface SshKeyJson {
  id: number;
  title: string;
  key: string;
  created_at: string;
  expires_at: string | null;
}

export function serializeSshKey(key: SshKeyRecord): SshKeyJson {
  return { id: key.id, title: key.title, key: key.key, created_at: key.created_at, expires_at: key.expires_at };
}

export interface GpgKeyJson {
  id: number;
  key: string;
  created_at: string;
}

export function serializeGpgKey(key: GpgKeyRecord): GpgKeyJson {
  return { id: key.id, key: key.key, created_at: key.created_at };
}
