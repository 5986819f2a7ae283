/** SSH and GPG keys of users (GitLab's /user/keys and /user/gpg_keys). */

export interface SshKeyRecord {
  id: number;
  user_id: number;
  title: string;
  key: string;
  /** MD5 colon hex; unique over the whole instance. */
  fingerprint: string;
  /** Unpadded base64 SHA-256, without `SHA256:` (GitLab's `fingerprint_sha256`). */
  fingerprint_sha256: string | null;
  key_type: string;
  key_bits: number;
  created_at: string;
  /** YYYY-MM-DD or ISO time, null when the key never expires. */
  expires_at: string | null;
}

export type NewSshKey = Omit<SshKeyRecord, 'id'>;

export interface SshKeysStore {
  create(key: NewSshKey): Promise<SshKeyRecord>;
  findById(id: number): Promise<SshKeyRecord | undefined>;
  findByFingerprint(fingerprint: string): Promise<SshKeyRecord | undefined>;
  findBySha256Fingerprint(fingerprint: string): Promise<SshKeyRecord | undefined>;
  listForUser(userId: number, page: { offset: number; limit: number }): Promise<{ items: SshKeyRecord[]; total: number }>;
  delete(id: number): Promise<boolean>;
}

export interface GpgKeyRecord {
  id: number;
  user_id: number;
  key: string;
  /** Upper-case hex of the v4 fingerprint of the primary key. */
  fingerprint: string;
  /** Upper-case hex of the last 8 bytes of the fingerprint. */
  primary_keyid: string;
  created_at: string;
}

export type NewGpgKey = Omit<GpgKeyRecord, 'id'>;

/** A subkey of a GPG key (GitLab's gpg_key_subkeys), upper-case hex like the key's. */
export interface NewGpgSubkey {
  keyid: string;
  fingerprint: string;
}

export interface GpgKeysStore {
  /** The key and its subkeys at once; a fingerprint stored already (key or subkey) is a unique violation. */
  create(key: NewGpgKey, subkeys?: readonly NewGpgSubkey[]): Promise<GpgKeyRecord>;
  /** The stored key whose primary key or one of whose subkeys has this fingerprint, with the subkey's id. */
  findSigningKey(fingerprint: string): Promise<{ key: GpgKeyRecord; subkeyId: number | null } | undefined>;
  findById(id: number): Promise<GpgKeyRecord | undefined>;
  findByFingerprint(fingerprint: string): Promise<GpgKeyRecord | undefined>;
  listForUser(userId: number, page: { offset: number; limit: number }): Promise<{ items: GpgKeyRecord[]; total: number }>;
  delete(id: number): Promise<boolean>;
}

/** What deleting a user touches outside the users table. */
export interface UserLifecycleStore {
  /** Ids of projects in the user's personal namespace (removed with the user). */
  personalProjectIds(userId: number): Promise<number[]>;
  /** Moves authored records (project creator, commit comments, member grants) to another user. */
  reassignContributions(fromUserId: number, toUserId: number): Promise<void>;
  /** Ids of groups where the user is the only Owner. */
  solelyOwnedGroupIds(userId: number): Promise<number[]>;
}
