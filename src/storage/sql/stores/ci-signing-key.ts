import type { Db } from '../database.ts';
import type { SecretBox } from '../../secret-box.ts';
import type { CiSigningKeyStore } from '../../types-instances.ts';

/** The instance's CI signing key (`ci_signing_key`, one row), sealed at rest. */
export class SqlCiSigningKeyStore implements CiSigningKeyStore {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  async find(): Promise<string | undefined> {
    const row = await this.db.selectFrom('ci_signing_key').select('private_key').where('id', '=', 1).executeTakeFirst();
    return row ? this.secrets.open(row.private_key) : undefined;
  }

  async create(privateKeyPem: string, now: string): Promise<string> {
    // The primary key settles a race between coordinators: the first row stays, every one reads it.
    await this.db
      .insertInto('ci_signing_key')
      .values({ id: 1, private_key: this.secrets.seal(privateKeyPem), created_at: now })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
    const recorded = await this.find();
    if (recorded === undefined) throw new Error('the CI signing key vanished after it was written');
    return recorded;
  }
}
