import type { DeployKeyProjectLink, DeployKeyRecord, DeployKeysStore, ProjectDeployKeyRecord } from '../../types-repository.ts';
import type { Db } from '../database.ts';

const KEY_COLUMNS = ['deploy_keys.id', 'deploy_keys.title', 'deploy_keys.key', 'deploy_keys.fingerprint', 'deploy_keys.fingerprint_sha256', 'deploy_keys.created_at'] as const;

export class SqlDeployKeysStore implements DeployKeysStore {
  constructor(private readonly db: Db) {}

  async listAll(page: { offset: number; limit: number }): Promise<DeployKeyRecord[]> {
    return this.db.selectFrom('deploy_keys').select(KEY_COLUMNS).orderBy('id').offset(page.offset).limit(page.limit).execute();
  }

  async countAll(): Promise<number> {
    const row = await this.db.selectFrom('deploy_keys').select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return Number(row.total);
  }

  async listForProject(projectId: number, page: { offset: number; limit: number }): Promise<ProjectDeployKeyRecord[]> {
    const rows = await this.projectKeys(projectId).orderBy('deploy_keys.id').offset(page.offset).limit(page.limit).execute();
    return rows.map((row) => ({ ...row, can_push: row.can_push === 1 }));
  }

  async countForProject(projectId: number): Promise<number> {
    const row = await this.db
      .selectFrom('deploy_keys_projects')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  async findById(id: number): Promise<DeployKeyRecord | null> {
    return (await this.db.selectFrom('deploy_keys').select(KEY_COLUMNS).where('id', '=', id).executeTakeFirst()) ?? null;
  }

  async findByFingerprint(fingerprint: string): Promise<DeployKeyRecord | null> {
    return (await this.db.selectFrom('deploy_keys').select(KEY_COLUMNS).where('fingerprint', '=', fingerprint).executeTakeFirst()) ?? null;
  }

  async findBySha256Fingerprint(fingerprint: string): Promise<DeployKeyRecord | null> {
    return (await this.db.selectFrom('deploy_keys').select(KEY_COLUMNS).where('fingerprint_sha256', '=', fingerprint).executeTakeFirst()) ?? null;
  }

  async findForProject(projectId: number, keyId: number): Promise<ProjectDeployKeyRecord | null> {
    const row = await this.projectKeys(projectId).where('deploy_keys.id', '=', keyId).executeTakeFirst();
    return row ? { ...row, can_push: row.can_push === 1 } : null;
  }

  async projectIds(keyId: number): Promise<number[]> {
    const rows = await this.db.selectFrom('deploy_keys_projects').select('project_id').where('deploy_key_id', '=', keyId).orderBy('id').execute();
    return rows.map((row) => row.project_id);
  }

  async projectLinks(keyId: number): Promise<DeployKeyProjectLink[]> {
    const rows = await this.db
      .selectFrom('deploy_keys_projects')
      .select(['id', 'deploy_key_id', 'project_id', 'can_push', 'created_at'])
      .where('deploy_key_id', '=', keyId)
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ ...row, can_push: Boolean(row.can_push) }));
  }

  async create(key: Omit<DeployKeyRecord, 'id'>): Promise<DeployKeyRecord> {
    return this.db.insertInto('deploy_keys').values(key).returning(KEY_COLUMNS).executeTakeFirstOrThrow();
  }

  async updateTitle(id: number, title: string): Promise<void> {
    await this.db.updateTable('deploy_keys').set({ title }).where('id', '=', id).execute();
  }

  async link(keyId: number, projectId: number, canPush: boolean, createdAt: string): Promise<void> {
    await this.db
      .insertInto('deploy_keys_projects')
      .values({ deploy_key_id: keyId, project_id: projectId, can_push: canPush ? 1 : 0, created_at: createdAt })
      // Linking twice (two concurrent requests) keeps the first link.
      .onConflict((conflict) => conflict.columns(['deploy_key_id', 'project_id']).doNothing())
      .execute();
  }

  async setCanPush(keyId: number, projectId: number, canPush: boolean): Promise<void> {
    await this.db
      .updateTable('deploy_keys_projects')
      .set({ can_push: canPush ? 1 : 0 })
      .where('deploy_key_id', '=', keyId)
      .where('project_id', '=', projectId)
      .execute();
  }

  async unlink(keyId: number, projectId: number): Promise<void> {
    await this.db.deleteFrom('deploy_keys_projects').where('deploy_key_id', '=', keyId).where('project_id', '=', projectId).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('deploy_keys_projects').where('deploy_key_id', '=', id).execute();
    await this.db.deleteFrom('deploy_keys').where('id', '=', id).execute();
  }

  async unlinkProject(projectId: number): Promise<void> {
    await this.db.deleteFrom('deploy_keys_projects').where('project_id', '=', projectId).execute();
  }

  async deleteUnused(): Promise<void> {
    await this.db
      .deleteFrom('deploy_keys')
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('deploy_keys_projects').select('deploy_keys_projects.id').whereRef('deploy_keys_projects.deploy_key_id', '=', 'deploy_keys.id'))))
      .execute();
  }

  private projectKeys(projectId: number) {
    return this.db
      .selectFrom('deploy_keys')
      .innerJoin('deploy_keys_projects', 'deploy_keys_projects.deploy_key_id', 'deploy_keys.id')
      .select([...KEY_COLUMNS, 'deploy_keys_projects.project_id', 'deploy_keys_projects.can_push'])
      .where('deploy_keys_projects.project_id', '=', projectId);
  }
}
