import type { Db } from '../database.ts';
import { countAll } from '../database.ts';
import type {
  GpgKeyRecord,
  GpgKeysStore,
  NewGpgKey,
  NewGpgSubkey,
  NewSshKey,
  SshKeyRecord,
  SshKeysStore,
} from '../../types-users.ts';

const SSH_COLUMNS = ['id', 'user_id', 'title', 'key', 'fingerprint', 'fingerprint_sha256', 'key_type', 'key_bits', 'created_at', 'expires_at'] as const;
const GPG_COLUMNS = ['id', 'user_id', 'key', 'fingerprint', 'primary_keyid', 'created_at'] as const;

export class SqlSshKeysStore implements SshKeysStore {
  constructor(private readonly db: Db) {}

  async create(key: NewSshKey): Promise<SshKeyRecord> {
    return this.db.insertInto('ssh_keys').values(key).returning(SSH_COLUMNS).executeTakeFirstOrThrow();
  }

  async findById(id: number): Promise<SshKeyRecord | undefined> {
    return this.db.selectFrom('ssh_keys').select(SSH_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  async findByFingerprint(fingerprint: string): Promise<SshKeyRecord | undefined> {
    return this.db.selectFrom('ssh_keys').select(SSH_COLUMNS).where('fingerprint', '=', fingerprint).executeTakeFirst();
  }

  async findBySha256Fingerprint(fingerprint: string): Promise<SshKeyRecord | undefined> {
    return this.db.selectFrom('ssh_keys').select(SSH_COLUMNS).where('fingerprint_sha256', '=', fingerprint).executeTakeFirst();
  }

  async listForUser(userId: number, page: { offset: number; limit: number }): Promise<{ items: SshKeyRecord[]; total: number }> {
    const query = this.db.selectFrom('ssh_keys').where('user_id', '=', userId);
    const totalRow = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const items = await query.select(SSH_COLUMNS).orderBy('id').offset(page.offset).limit(page.limit).execute();
    return { items, total: Number(totalRow.total) };
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('ssh_keys').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

export class SqlGpgKeysStore implements GpgKeysStore {
  constructor(private readonly db: Db) {}

  async create(key: NewGpgKey, subkeys: readonly NewGpgSubkey[] = []): Promise<GpgKeyRecord> {
    return this.db.transaction().execute(async (trx) => {
      const created = await trx.insertInto('gpg_keys').values(key).returning(GPG_COLUMNS).executeTakeFirstOrThrow();
      if (subkeys.length > 0) {
        await trx.insertInto('gpg_key_subkeys').values(subkeys.map((subkey) => ({ gpg_key_id: created.id, keyid: subkey.keyid, fingerprint: subkey.fingerprint }))).execute();
      }
      return created;
    });
  }

  async findSigningKey(fingerprint: string): Promise<{ key: GpgKeyRecord; subkeyId: number | null } | undefined> {
    const key = await this.findByFingerprint(fingerprint);
    if (key) return { key, subkeyId: null };
    const subkey = await this.db.selectFrom('gpg_key_subkeys').select(['id', 'gpg_key_id']).where('fingerprint', '=', fingerprint).executeTakeFirst();
    const owner = subkey && (await this.findById(subkey.gpg_key_id));
    return owner ? { key: owner, subkeyId: subkey.id } : undefined;
  }

  async findById(id: number): Promise<GpgKeyRecord | undefined> {
    return this.db.selectFrom('gpg_keys').select(GPG_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  async findByFingerprint(fingerprint: string): Promise<GpgKeyRecord | undefined> {
    return this.db.selectFrom('gpg_keys').select(GPG_COLUMNS).where('fingerprint', '=', fingerprint).executeTakeFirst();
  }

  async listForUser(userId: number, page: { offset: number; limit: number }): Promise<{ items: GpgKeyRecord[]; total: number }> {
    const query = this.db.selectFrom('gpg_keys').where('user_id', '=', userId);
    const totalRow = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const items = await query.select(GPG_COLUMNS).orderBy('id').offset(page.offset).limit(page.limit).execute();
    return { items, total: Number(totalRow.total) };
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('gpg_keys').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
