import type { CoordinatorEvents } from '../events.ts';
import { GantryError, validationFailed } from '../../../shared/errors.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { GpgKeyRecord, GpgKeysStore, SshKeyRecord, SshKeysStore } from '../../../storage/types-users.ts';
import { looksLikeGpgPublicKey, parseGpgPublicKey } from './keys/gpg-key.ts';
import { checkLengths } from '../field-limits.ts';
import { parseSshPublicKey, sha256Digest, SSH_KEY_LIMITS, sshKeyRestrictionError } from './keys/ssh-key.ts';
import type { Actor } from '../access/permissions.ts';
import type { SettingsService } from '../instance/settings.ts';
import type { UsersService } from './users.ts';

const GPG_FORMAT_MESSAGE = "is invalid. A valid public GPG key begins with '-----BEGIN PGP PUBLIC KEY BLOCK-----'";

export interface Page {
  offset: number;
  limit: number;
}

/**
 * Whose keys a route works on: the caller's own (`/user/...`), another user's read by anyone
 * allowed to read users, or another user's administered by an administrator (`/users/:id/...`).
 */
export type KeyOwner =
  | { kind: 'self'; actor: UserRecord }
  | { kind: 'read'; actor: Actor; ref: string }
  | { kind: 'administer'; actor: UserRecord; ref: string };

export interface SshKeyInput {
  title: string;
  key: string;
  /** ISO 8601; must lie in the future. */
  expiresAt?: string;
}

type OwnerUsers = Pick<UsersService, 'readable' | 'administered'>;

async function ownerOf(users: OwnerUsers, owner: KeyOwner): Promise<UserRecord> {
  if (owner.kind === 'self') return owner.actor;
  return owner.kind === 'read' ? users.readable(owner.actor, owner.ref) : users.administered(owner.actor, owner.ref);
}

export interface SshKeysServiceDeps {
  sshKeys: Pick<SshKeysStore, 'listForUser' | 'findById' | 'findByFingerprint' | 'create' | 'delete'>;
  settings: Pick<SettingsService, 'values'>;
  users: OwnerUsers;
  /** System hooks' `key_create` / `key_destroy`. */
  events?: Pick<CoordinatorEvents, 'publishSystemEvent'>;
}

export interface GpgKeysServiceDeps {
  gpgKeys: Pick<GpgKeysStore, 'listForUser' | 'findById' | 'findByFingerprint' | 'create' | 'delete'>;
  users: OwnerUsers;
}

/** A concurrent request stored the same key between the check and the insert. */
function rethrowTakenFingerprint(error: unknown): never {
  if (isUniqueViolation(error)) throw validationFailed({ fingerprint: ['has already been taken'] });
  throw error;
}

/** SSH keys of users (`/user/keys`, `/users/:id/keys`). */
export class SshKeysService {
  constructor(private readonly deps: SshKeysServiceDeps) {}

  async list(owner: KeyOwner, page: Page): Promise<{ items: SshKeyRecord[]; total: number }> {
    return this.deps.sshKeys.listForUser((await ownerOf(this.deps.users, owner)).id, page);
  }

  async get(owner: KeyOwner, keyId: number): Promise<SshKeyRecord> {
    return this.find((await ownerOf(this.deps.users, owner)).id, keyId);
  }

  /** Validates like GitLab's Key model: parseable, allowed by the settings, unique fingerprint. */
  async add(owner: KeyOwner, input: SshKeyInput): Promise<SshKeyRecord> {
    const keyOwner = await ownerOf(this.deps.users, owner);
    const userId = keyOwner.id;
    const { title, key } = input;
    checkLengths(SSH_KEY_LIMITS, { title, key });
    const expiresAt = input.expiresAt ?? null;
    const parsed = parseSshPublicKey(key);
    if (!parsed) throw validationFailed({ key: ['is invalid'], fingerprint: ['cannot be generated'] });
    const errors: Record<string, string[]> = {};
    const restriction = sshKeyRestrictionError(parsed, await this.deps.settings.values());
    if (restriction) errors.key = [restriction];
    if (await this.deps.sshKeys.findByFingerprint(parsed.fingerprint)) errors.fingerprint = ['has already been taken'];
    if (expiresAt !== null && Date.parse(expiresAt) <= Date.now()) errors.expires_at = ['must be in the future'];
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    const created = await this.deps.sshKeys
      .create({
        user_id: userId,
        title,
        key: parsed.normalized,
        fingerprint: parsed.fingerprint,
        fingerprint_sha256: sha256Digest(parsed),
        key_type: parsed.algorithm,
        key_bits: parsed.bits,
        created_at: new Date().toISOString(),
        expires_at: expiresAt,
      })
      .catch(rethrowTakenFingerprint);
    await this.deps.events?.publishSystemEvent({ name: 'key_create', key: created, user: keyOwner });
    return created;
  }

  async remove(owner: KeyOwner, keyId: number): Promise<void> {
    const keyOwner = await ownerOf(this.deps.users, owner);
    const key = await this.get(owner, keyId);
    await this.deps.sshKeys.delete(keyId);
    await this.deps.events?.publishSystemEvent({ name: 'key_destroy', key, user: keyOwner });
  }

  private async find(userId: number, keyId: number): Promise<SshKeyRecord> {
    const key = await this.deps.sshKeys.findById(keyId);
    if (!key || key.user_id !== userId) throw new GantryError('GANTRY_E_SSH_KEY_NOT_FOUND');
    return key;
  }
}

/** GPG keys of users (`/user/gpg_keys`). */
export class GpgKeysService {
  constructor(private readonly deps: GpgKeysServiceDeps) {}

  async list(owner: KeyOwner, page: Page): Promise<{ items: GpgKeyRecord[]; total: number }> {
    return this.deps.gpgKeys.listForUser((await ownerOf(this.deps.users, owner)).id, page);
  }

  async get(owner: KeyOwner, keyId: number): Promise<GpgKeyRecord> {
    const userId = (await ownerOf(this.deps.users, owner)).id;
    const key = await this.deps.gpgKeys.findById(keyId);
    if (!key || key.user_id !== userId) throw new GantryError('GANTRY_E_GPG_KEY_NOT_FOUND');
    return key;
  }

  /** An armored public key (`key`). */
  async add(owner: KeyOwner, text: string): Promise<GpgKeyRecord> {
    const userId = (await ownerOf(this.deps.users, owner)).id;
    if (!looksLikeGpgPublicKey(text)) throw validationFailed({ key: [GPG_FORMAT_MESSAGE] });
    const parsed = parseGpgPublicKey(text);
    if (!parsed) {
      throw validationFailed({ key: [GPG_FORMAT_MESSAGE], fingerprint: ["can't be blank"], primary_keyid: ["can't be blank"] });
    }
    if (await this.deps.gpgKeys.findByFingerprint(parsed.fingerprint)) {
      throw validationFailed({ fingerprint: ['has already been taken'] });
    }
    return this.deps.gpgKeys
      .create({
        user_id: userId,
        key: parsed.armored,
        fingerprint: parsed.fingerprint,
        primary_keyid: parsed.primaryKeyId,
        created_at: new Date().toISOString(),
      }, parsed.subkeys.map((subkey) => ({ keyid: subkey.keyId, fingerprint: subkey.fingerprint })))
      .catch(rethrowTakenFingerprint);
  }

  /** Removes a key (revoking one is a removal: signatures are not verified here). */
  async remove(owner: KeyOwner, keyId: number): Promise<void> {
    await this.get(owner, keyId);
    await this.deps.gpgKeys.delete(keyId);
  }
}
