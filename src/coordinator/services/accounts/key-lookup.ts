import { accessDenied, GantryError } from '../../../shared/errors.ts';
import type { UserRecord, UsersStore } from '../../../storage/types.ts';
import type { DeployKeyProjectLink, DeployKeyRecord, DeployKeysStore } from '../../../storage/types-repository.ts';
import type { SshKeyRecord, SshKeysStore } from '../../../storage/types-users.ts';
import type { Permissions } from '../access/permissions.ts';

export interface KeyLookupDeps {
  sshKeys: Pick<SshKeysStore, 'findById' | 'findByFingerprint' | 'findBySha256Fingerprint'>;
  deployKeys: Pick<DeployKeysStore, 'findByFingerprint' | 'findBySha256Fingerprint' | 'projectLinks'>;
  users: Pick<UsersStore, 'findById'>;
  permissions: Pick<Permissions, 'isAdministrator'>;
}

/** What `GET /keys?fingerprint=` found: a user's SSH key with its owner, or a deploy key with the projects that use it. */
export type FoundKey =
  | { kind: 'ssh'; key: SshKeyRecord; user: UserRecord | null }
  | { kind: 'deploy'; key: DeployKeyRecord; links: DeployKeyProjectLink[] };

const MD5_FINGERPRINT = /^([0-9a-f]{2}:){15}[0-9a-f]{2}$/i;
const SHA256_PREFIX = /^sha256:/i;

/** `sha256` with the digest (unpadded base64 of 32 bytes), `md5` with lower-case colon hex, or null: neither form. */
export function parseKeyFingerprint(text: string): { kind: 'sha256' | 'md5'; value: string } | null {
  if (SHA256_PREFIX.test(text)) {
    const value = text.replace(SHA256_PREFIX, '').replace(/=+$/, '');
    return /^[A-Za-z0-9+/]{43}$/.test(value) && Buffer.from(value, 'base64').length === 32 ? { kind: 'sha256', value } : null;
  }
  return MD5_FINGERPRINT.test(text) ? { kind: 'md5', value: text.toLowerCase() } : null;
}

/** GitLab's Keys API (`/keys/:id`, `/keys?fingerprint=`): administrators look any key up, users' and deploy keys alike. */
export class KeyLookupService {
  constructor(private readonly deps: KeyLookupDeps) {}

  async byId(actor: UserRecord, id: number): Promise<{ key: SshKeyRecord; user: UserRecord | null }> {
    this.requireAdministrator(actor);
    const key = await this.deps.sshKeys.findById(id);
    if (!key) throw new GantryError('GANTRY_E_SSH_KEY_NOT_FOUND');
    return { key, user: (await this.deps.users.findById(key.user_id)) ?? null };
  }

  /** A user's key wins over a deploy key of the same fingerprint (GitLab keeps both kinds in one table). */
  async byFingerprint(actor: UserRecord, fingerprint: string): Promise<FoundKey> {
    this.requireAdministrator(actor);
    const parsed = parseKeyFingerprint(fingerprint);
    if (!parsed) throw new GantryError('GANTRY_E_KEY_FINGERPRINT_INVALID');
    const sshKey = parsed.kind === 'sha256' ? await this.deps.sshKeys.findBySha256Fingerprint(parsed.value) : await this.deps.sshKeys.findByFingerprint(parsed.value);
    if (sshKey) return { kind: 'ssh', key: sshKey, user: (await this.deps.users.findById(sshKey.user_id)) ?? null };
    const deployKey =
      parsed.kind === 'sha256' ? await this.deps.deployKeys.findBySha256Fingerprint(parsed.value) : await this.deps.deployKeys.findByFingerprint(parsed.value);
    if (!deployKey) throw new GantryError('GANTRY_E_SSH_KEY_NOT_FOUND');
    return { kind: 'deploy', key: deployKey, links: await this.deps.deployKeys.projectLinks(deployKey.id) };
  }

  private requireAdministrator(actor: UserRecord): void {
    if (!this.deps.permissions.isAdministrator(actor)) throw accessDenied();
  }
}
