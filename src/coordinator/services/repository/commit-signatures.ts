import { GantryError } from '../../../shared/errors.ts';
import type { GpgCheck, GpgVerifier } from '../../../storage/git/gpg-verify.ts';
import type { GitClient } from '../../../storage/git/types.ts';
import type { GpgKeyRecord, GpgKeysStore } from '../../../storage/types-users.ts';
import type { UsersStore } from '../../../storage/types.ts';
import type { UserEmailsStore } from '../../../storage/types-user-emails.ts';
import type { Actor } from '../access/permissions.ts';
import type { RepositoryAccess } from './access.ts';

/** GitLab's verification statuses of a GPG signature (the ones Gantry can reach). */
export type SignatureVerificationStatus = 'verified' | 'unverified' | 'unverified_key' | 'unknown_key' | 'other_user' | 'same_user_different_email' | 'revoked_key';

/** GitLab's answer of `GET .../commits/:sha/signature` for a GPG signature. */
export interface CommitSignatureView {
  signature_type: 'PGP';
  verification_status: SignatureVerificationStatus;
  gpg_key_id: number | null;
  gpg_key_primary_keyid: string | null;
  gpg_key_user_name: string | null;
  gpg_key_user_email: string | null;
  gpg_key_subkey_id: number | null;
  commit_source: 'gitaly';
}

export interface CommitSignaturesDeps {
  access: Pick<RepositoryAccess, 'forRead'>;
  gpgKeys: Pick<GpgKeysStore, 'findSigningKey'>;
  users: Pick<UsersStore, 'findById'>;
  emails: Pick<UserEmailsStore, 'confirmedAddresses'>;
  verifier: Pick<GpgVerifier, 'issuer' | 'check'>;
}

/**
 * Verifies a commit's GPG signature with gpg (storage/git/gpg-verify.ts) against the GPG keys
 * users stored (`/user/gpg_keys`), with GitLab's verdicts: the signing key must be a stored
 * key, one of its user ids must carry an email of the key's owner (the primary address or a
 * confirmed secondary one), the signature must hold, and the committer email decides between
 * verified, same_user_different_email and other_user. Keys are found by the issuer fingerprint
 * the signature carries (gpg 2.2 and later write it): a stored key's or one of its subkeys'.
 */
export class CommitSignaturesService {
  constructor(private readonly deps: CommitSignaturesDeps) {}

  async signature(projectRef: string, actor: Actor, sha: string, client?: GitClient): Promise<CommitSignatureView> {
    const { repository } = await this.deps.access.forRead(projectRef, actor, client);
    const signed = repository ? await repository.commitSignature(sha) : 'missing';
    if (signed === 'missing') throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND');
    if (signed === 'unsigned' || signed.type !== 'PGP') throw new GantryError('GANTRY_E_SIGNATURE_NOT_FOUND');
    const issuer = await this.deps.verifier.issuer(signed.signature);
    if (!issuer) return view('unverified', null, null, null);
    const found = issuer.fingerprint ? await this.deps.gpgKeys.findSigningKey(issuer.fingerprint) : undefined;
    if (!found) return view('unknown_key', null, issuer.keyId, null);
    const { key, subkeyId } = found;
    const check = await this.deps.verifier.check(signed.signature, signed.signedData, key.key);
    const owner = await this.deps.users.findById(key.user_id);
    const ownerEmails = owner ? [owner.email, ...(await this.deps.emails.confirmedAddresses(owner.id))].map((email) => email.toLowerCase()) : [];
    const committer = signed.committerEmail.toLowerCase();
    const userId = check.userIds.find((candidate) => candidate.email.toLowerCase() === committer) ?? check.userIds[0] ?? null;
    return view(verdict(check, ownerEmails, committer), key, key.primary_keyid, userId, subkeyId);
  }
}

function verdict(check: GpgCheck, ownerEmails: readonly string[], committer: string): SignatureVerificationStatus {
  const keyEmails = check.userIds.map((userId) => userId.email.toLowerCase());
  if (!keyEmails.some((email) => ownerEmails.includes(email))) return 'unverified_key';
  if (check.outcome === 'revoked_key') return 'revoked_key';
  if (check.outcome !== 'good') return 'unverified';
  if (keyEmails.includes(committer) && ownerEmails.includes(committer)) return 'verified';
  return ownerEmails.includes(committer) ? 'same_user_different_email' : 'other_user';
}

function view(
  status: SignatureVerificationStatus,
  key: GpgKeyRecord | null,
  primaryKeyId: string | null,
  userId: { name: string; email: string } | null,
  subkeyId: number | null = null,
): CommitSignatureView {
  return {
    signature_type: 'PGP',
    verification_status: status,
    gpg_key_id: key?.id ?? null,
    gpg_key_primary_keyid: primaryKeyId,
    gpg_key_user_name: userId?.name ?? null,
    gpg_key_user_email: userId?.email ?? null,
    gpg_key_subkey_id: subkeyId,
    commit_source: 'gitaly',
  };
}
