import type { FoundKey } from '../../../services/accounts/key-lookup.ts';
import type { UserRecord } from '../../../../storage/types.ts';
import type { SshKeyRecord } from '../../../../storage/types-users.ts';
import { serializeDeployKey, type DeployKeyJson } from './deploy-keys.ts';
import { serializeSshKey, serializeUserAdmin, type SshKeyJson, type UserAdminJson } from './users.ts';

/** GitLab's SSHKeyWithUser: the key and its owner as administrators see users. */
export interface SshKeyWithUserJson extends SshKeyJson {
  user: UserAdminJson | null;
}

/** GitLab's DeployKeyWithUser: a deploy key has no owner here, and names the projects that use it. */
export interface DeployKeyWithUserJson extends DeployKeyJson {
  user: null;
  deploy_keys_projects: { id: number; deploy_key_id: number; project_id: number; can_push: boolean; created_at: string; updated_at: string }[];
}

export function serializeSshKeyWithUser(key: SshKeyRecord, user: UserRecord | null, externalUrl: string): SshKeyWithUserJson {
  return { ...serializeSshKey(key), user: user && serializeUserAdmin(user, externalUrl) };
}

export function serializeFoundKey(found: FoundKey, externalUrl: string): SshKeyWithUserJson | DeployKeyWithUserJson {
  if (found.kind === 'ssh') return serializeSshKeyWithUser(found.key, found.user, externalUrl);
  return {
    ...serializeDeployKey(found.key),
    user: null,
    deploy_keys_projects: found.links.map((link) => ({ ...link, updated_at: link.created_at })),
  };
}
