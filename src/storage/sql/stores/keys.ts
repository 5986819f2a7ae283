import type { Db } from '../database.ts';
import { countAll } from '../database.ts';
import type {
  GpgKeyRecord,
  GpgKeysStore,
  NewGpgKey,
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

  async create(key: NewGpgKey): Promise<GpgKeyRecord> {
    return this.db.insertInto('gpg_keys').values(key).returning(GPG_COLUMNS).executeTakeFirstOrThrow();
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
