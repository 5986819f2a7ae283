import { sql } from 'kysely';
import type { Db } from '../database.ts';
import { countAll } from '../database.ts';
import { preparedQuery } from '../prepared.ts';
import type { NewUser, UserChanges, UserListFilter, UserRecord, UsersStore } from '../../types.ts';
import { containsInsensitive } from './like.ts';
import { pickColumns, recordToRow, rowToRecord, type ColumnKinds } from './row-mapping.ts';

const USER_COLUMNS: ColumnKinds<UserRecord> = {
  booleans: ['is_admin', 'is_ghost', 'can_create_group', 'external', 'two_factor_enabled'],
};

/** The columns of a user record (the password digest stays in the database). */
export const USER_SELECTED = [
  'id', 'username', 'name', 'email', 'state', 'is_admin', 'is_ghost', 'bio', 'location', 'messenger_id',
  'network_profile', 'microblog_account', 'website_url', 'organization', 'projects_limit', 'can_create_group',
  'external', 'extern_uid', 'provider', 'avatar_url', 'theme_id', 'color_scheme_id', 'two_factor_enabled',
  'password_expires_at', 'created_at', 'confirmed_at', 'last_sign_in_at', 'current_sign_in_at', 'last_activity_on',
] as const;

const SELECTED = USER_SELECTED;

export const toUser = (row: object) => rowToRecord<UserRecord>(row, USER_COLUMNS);

const pickUserColumns = pickColumns(USER_SELECTED);

/** The user of a row that holds other columns too (a join naming the user's columns as they are). */
export const userOfJoined = (row: object): UserRecord => toUser(pickUserColumns(row));

export class SqlUsersStore implements UsersStore {
  private readonly byId;

  constructor(private readonly db: Db) {
    this.byId = preparedQuery<object>(db, 1, (id) => db.selectFrom('users').select(SELECTED).where('id', '=', id as never).compile());
  }

  async create(user: NewUser): Promise<UserRecord> {
    const row = recordToRow<NewUser>(user, { booleans: USER_COLUMNS.booleans as Array<keyof NewUser> });
    const inserted = await this.db
      .insertInto('users')
      .values({ ...row, updated_at: user.created_at } as never)
      .returning(SELECTED)
      .executeTakeFirstOrThrow();
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
    if (distinct.length === 1) return (await this.byId(distinct[0])).map(toUser);
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
    const row = recordToRow<UserChanges>(changes, { booleans: USER_COLUMNS.booleans as Array<keyof UserChanges> });
    if (Object.keys(row).length === 0) return this.findById(id);
    const updated = await this.db
      .updateTable('users')
      .set({ ...row, updated_at: new Date().toISOString() } as never)
      .where('id', '=', id)
      .returning(SELECTED)
      .executeTakeFirst();
    return updated && toUser(updated);
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('users').select(countAll().as('total')).executeTakeFirstOrThrow();
    return Number(row.total);
  }
}
