import { GantryError, validationFailed } from '../../shared/errors.ts';
import { isUniqueViolation } from '../../storage/sql/database.ts';
import type { GpgKeyRecord, SshKeyRecord } from '../../storage/types-users.ts';
import type { CoordinatorContext } from '../context.ts';
import type { PageRequest } from '../http/pagination.ts';
import type { Params } from '../http/params.ts';
import { looksLikeGpgPublicKey, parseGpgPublicKey } from './keys/gpg-key.ts';
import { checkLengths } from './field-limits.ts';
import { parseSshPublicKey, SSH_KEY_LIMITS, sshKeyRestrictionError } from './keys/ssh-key.ts';
import { requireParams } from './users-input.ts';

const GPG_FORMAT_MESSAGE = "is invalid. A valid public GPG key begins with '-----BEGIN PGP PUBLIC KEY BLOCK-----'";

type Page = { items: SshKeyRecord[]; total: number };

/** A concurrent request stored the same key between the check and the insert. */
function rethrowTakenFingerprint(error: unknown): never {
  if (isUniqueViolation(error)) throw validationFailed({ fingerprint: ['has already been taken'] });
  throw error;
}

/** SSH keys of users (`/user/keys`, `/users/:id/keys`). */
export class SshKeysService {
  constructor(private readonly context: CoordinatorContext) {}

  list(userId: number, page: PageRequest): Promise<Page> {
    return this.context.stores.sshKeys.listForUser(userId, { offset: page.offset, limit: page.perPage });
  }

  async get(userId: number, keyId: number): Promise<SshKeyRecord> {
    const key = await this.context.stores.sshKeys.findById(keyId);
    if (!key || key.user_id !== userId) throw new GantryError('GANTRY_E_SSH_KEY_NOT_FOUND');
    return key;
  }

  /** Validates like GitLab's Key model: parseable, allowed by the settings, unique fingerprint. */
  async add(userId: number, params: Params): Promise<SshKeyRecord> {
    requireParams(params, ['key', 'title']);
    const title = params.requiredString('title');
    const key = params.requiredString('key');
    checkLengths(SSH_KEY_LIMITS, { title, key });
    const expiresAt = params.dateTime('expires_at') ?? null;
    const parsed = parseSshPublicKey(key);
    if (!parsed) throw validationFailed({ key: ['is invalid'], fingerprint: ['cannot be generated'] });
    const errors: Record<string, string[]> = {};
    const restriction = sshKeyRestrictionError(parsed, await this.context.settings.values());
    if (restriction) errors.key = [restriction];
    if (await this.context.stores.sshKeys.findByFingerprint(parsed.fingerprint)) errors.fingerprint = ['has already been taken'];
    if (expiresAt !== null && Date.parse(expiresAt) <= Date.now()) errors.expires_at = ['must be in the future'];
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    return this.context.stores.sshKeys
      .create({
        user_id: userId,
        title,
        key: parsed.normalized,
        fingerprint: parsed.fingerprint,
        key_type: parsed.algorithm,
        key_bits: parsed.bits,
        created_at: new Date().toISOString(),
        expires_at: expiresAt,
      })
      .catch(rethrowTakenFingerprint);
  }

  async remove(userId: number, keyId: number): Promise<void> {
    await this.get(userId, keyId);
    await this.context.stores.sshKeys.delete(keyId);
  }
}

/** GPG keys of users (`/user/gpg_keys`). */
export class GpgKeysService {
  constructor(private readonly context: CoordinatorContext) {}

  list(userId: number, page: PageRequest): Promise<{ items: GpgKeyRecord[]; total: number }> {
    return this.context.stores.gpgKeys.listForUser(userId, { offset: page.offset, limit: page.perPage });
  }

  async get(userId: number, keyId: number): Promise<GpgKeyRecord> {
    const key = await this.context.stores.gpgKeys.findById(keyId);
    if (!key || key.user_id !== userId) throw new GantryError('GANTRY_E_GPG_KEY_NOT_FOUND');
    return key;
  }

  async add(userId: number, params: Params): Promise<GpgKeyRecord> {
    const text = params.requiredString('key');
    if (!looksLikeGpgPublicKey(text)) throw validationFailed({ key: [GPG_FORMAT_MESSAGE] });
    const parsed = parseGpgPublicKey(text);
    if (!parsed) {
      throw validationFailed({ key: [GPG_FORMAT_MESSAGE], fingerprint: ["can't be blank"], primary_keyid: ["can't be blank"] });
    }
    if (await this.context.stores.gpgKeys.findByFingerprint(parsed.fingerprint)) {
      throw validationFailed({ fingerprint: ['has already been taken'] });
    }
    return this.context.stores.gpgKeys
      .create({
        user_id: userId,
        key: parsed.armored,
        fingerprint: parsed.fingerprint,
        primary_keyid: parsed.primaryKeyId,
        created_at: new Date().toISOString(),
      })
      .catch(rethrowTakenFingerprint);
  }

  async remove(userId: number, keyId: number): Promise<void> {
    await this.get(userId, keyId);
    await this.context.stores.gpgKeys.delete(keyId);
  }
}
