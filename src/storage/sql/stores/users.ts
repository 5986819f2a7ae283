import { sql } from '#deps/kysely';
import type { Db } from '../database.ts';
import { countAll } from '../database.ts';
import { preparedQuery } from '../prepared.ts';
import { EVERYTHING, type TableWrites } from '../table-writes.ts';
import type { NewUser, UserChanges, UserListFilter, UserRecord, UsersStore } from '../../types.ts';
import { containsInsensitive } from './like.ts';
import { ColumnKinds, pickColumns } from './row-mapping.ts';

const USER_KINDS = new ColumnKinds<UserRecord>({
  is_admin: 'boolean', is_ghost: 'boolean', can_create_group: 'boolean', external: 'boolean', two_factor_enabled: 'boolean',
});

/** The columns of a user record (the password digest stays in the database). */
export const USER_SELECTED = [
  'id', 'username', 'name', 'email', 'state', 'is_admin', 'is_ghost', 'bio', 'location', 'messenger_id',
  'network_profile', 'microblog_account', 'website_url', 'organization', 'projects_limit', 'can_create_group',
  'external', 'extern_uid', 'provider', 'avatar_url', 'theme_id', 'color_scheme_id', 'two_factor_enabled',
  'password_expires_at', 'created_at', 'confirmed_at', 'last_sign_in_at', 'current_sign_in_at', 'last_activity_on',
] as const;

const SELECTED = USER_SELECTED;

export const toUser = (row: object) => USER_KINDS.toRecord(row);

/** The user of a row that holds other columns too (a join naming the user's columns as they are). */
export const userOfJoined = (row: Readonly<Record<(typeof USER_SELECTED)[number], unknown>>): UserRecord => toUser(pickColumns(row, USER_SELECTED));

export class SqlUsersStore implements UsersStore {
  private readonly byId;

  constructor(
    private readonly db: Db,
    private readonly writes: TableWrites,
  ) {
    this.byId = preparedQuery(db, (id: number) => db.selectFrom('users').select(SELECTED).where('id', '=', id).compile());
  }

  async create(user: NewUser): Promise<UserRecord> {
    this.writes.report({ table: 'users' });
    // The address's claim commits with the user: an address any user has fails as a unique violation.
    const inserted = await this.db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('users')
        .values({ ...USER_KINDS.toColumns(user), updated_at: user.created_at })
        .returning(SELECTED)
        .executeTakeFirstOrThrow();
      await trx.insertInto('email_addresses').values({ address: user.email.toLowerCase(), user_id: row.id, user_email_id: null }).execute();
      return row;
    });
    return toUser(inserted);
  }

  async findById(id: number): Promise<UserRecord | undefined> {
    const [row] = await this.byId(id);
    return row && toUser(row);
  }

  async findByIds(ids: readonly number[]): Promise<UserRecord[]> {
    if (ids.length === 0) return [];
    const distinct = [...new Set(ids)];
    // One id (a project's owner) is the common case: the prepared statement skips building the query.
    if (distinct.length === 1) return (await this.byId(distinct[0]!)).map(toUser);
    const rows = await this.db.selectFrom('users').select(SELECTED).where('id', 'in', distinct).execute();
    return rows.map(toUser);
  }

  async findByUsername(username: string): Promise<UserRecord | undefined> {
    const row = await this.db
      .selectFrom('users')
      .select(SELECTED)
      .where(sql`lower(username)`, '=', username.toLowerCase())
      .executeTakeFirst();
    return row && toUser(row);
  }

  async findByEmail(email: string): Promise<UserRecord | undefined> {
    const row = await this.db
      .selectFrom('users')
      .select(SELECTED)
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .executeTakeFirst();
    return row && toUser(row);
  }

  async list(filter: UserListFilter, page: { offset: number; limit: number }): Promise<{ items: UserRecord[]; total: number }> {
    let query = this.db.selectFrom('users');
    if (!filter.includeGhosts) query = query.where('is_ghost', '=', 0);
    if (filter.active) query = query.where('state', '=', 'active');
    if (filter.blocked) query = query.where('state', '=', 'blocked');
    if (filter.external) query = query.where('external', '=', 1);
    if (filter.excludeExternal) query = query.where('external', '=', 0);
    if (filter.admins) query = query.where('is_admin', '=', 1);
    if (filter.withoutProjects) {
      query = query.where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('projects')
              .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
              .select('projects.id')
              .where('namespaces.kind', '=', 'user')
              .whereRef('namespaces.owner_id', '=', 'users.id'),
          ),
        ),
      );
    }
    if (filter.username !== undefined) query = query.where(sql`lower(username)`, '=', filter.username.toLowerCase());
    if (filter.externUid !== undefined) query = query.where('extern_uid', '=', filter.externUid);
    if (filter.provider !== undefined) query = query.where('provider', '=', filter.provider);
    if (filter.createdBefore !== undefined) query = query.where('created_at', '<', filter.createdBefore);
    if (filter.createdAfter !== undefined) query = query.where('created_at', '>', filter.createdAfter);
    if (filter.ids !== undefined) query = query.where('id', 'in', filter.ids.length ? filter.ids : [-1]);
    if (filter.search !== undefined && filter.search !== '') {
      const search = filter.search;
      query = query.where((eb) => eb.or(['username', 'email', 'name'].map((column) => containsInsensitive(this.db, column, search))));
    }
    const totalRow = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const direction = filter.sort ?? 'desc';
    let ordered = query.select(SELECTED);
    if (filter.orderBy === 'name' || filter.orderBy === 'username') ordered = ordered.orderBy(sql`lower(${sql.ref(filter.orderBy)})`, direction);
    else if (filter.orderBy === 'created_at' || filter.orderBy === 'updated_at') ordered = ordered.orderBy(filter.orderBy, direction);
    const rows = await ordered.orderBy('id', direction).offset(page.offset).limit(page.limit).execute();
    return { items: rows.map(toUser), total: Number(totalRow.total) };
  }

  async update(id: number, changes: UserChanges): Promise<UserRecord | undefined> {
    const row = USER_KINDS.toColumns(changes);
    if (Object.keys(row).length === 0) return this.findById(id);
    this.writes.report({ table: 'users', rowId: id });
    const updated = await this.db.transaction().execute(async (trx) => {
      const changed = await trx
        .updateTable('users')
        .set({ ...row, updated_at: new Date().toISOString() })
        .where('id', '=', id)
        .returning(SELECTED)
        .executeTakeFirst();
      if (changed && changes.email !== undefined) {
        // The primary address's claim moves with it (a unique violation when another user has the new one).
        await trx.deleteFrom('email_addresses').where('user_id', '=', id).where('user_email_id', 'is', null).execute();
        await trx.insertInto('email_addresses').values({ address: changes.email.toLowerCase(), user_id: id, user_email_id: null }).execute();
      }
      return changed;
    });
    return updated && toUser(updated);
  }

  async delete(id: number): Promise<boolean> {
    this.writes.report(EVERYTHING);
    const result = await this.db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('users').select(countAll().as('total')).executeTakeFirstOrThrow();
    return Number(row.total);
  }
}
