import type { CoordinatorEvents } from '../events.ts';
import { accessDenied, GantryError, validationFailed } from '../../../shared/errors.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { CustomAttributesStore, NamespacesStore, UserChanges, UserListFilter, UserRecord, UsersStore } from '../../../storage/types.ts';
import { hashPassword, type AccountsService } from './accounts.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Actor, Permissions } from '../access/permissions.ts';
import type { SettingsService } from '../instance/settings.ts';
import { randomPassword, validateUserAttributes, type UserAttributes } from './users-input.ts';
import type { UserRemoval } from './users-removal.ts';
import type { UserEmailsStore } from '../../../storage/types-user-emails.ts';

/** `GET /users` filters; those of `adminFilters` only count for administrators. */
export interface UserListQuery {
  username?: string;
  search?: string;
  active?: boolean;
  blocked?: boolean;
  /** Administrators only (403 for others when given at all). */
  external?: boolean;
  excludeExternal?: boolean;
  createdBefore?: string;
  createdAfter?: string;
  /** Both or neither; administrators only (403 for others). */
  externUid?: string;
  provider?: string;
  orderBy?: UserListFilter['orderBy'];
  sort?: 'asc' | 'desc';
  /** Ignored for others than administrators. */
  admins?: boolean;
  withoutProjects?: boolean;
  customAttributes?: Record<string, string>;
}

/** A user as one caller sees it: everything when the caller administers the instance. */
export interface UserView {
  user: UserRecord;
  /** The caller is an administrator: private fields (e-mail, admin flag...) are shown. */
  full: boolean;
}

export interface NewUserInput {
  attributes: UserAttributes;
  /** Create without a password; the user sets one through a reset. */
  resetPassword: boolean;
  skipConfirmation?: boolean;
  confirm?: boolean;
}

export interface UsersServiceDeps {
  users: Pick<UsersStore, 'list' | 'findByEmail' | 'findByUsername' | 'update'>;
  namespaces: Pick<NamespacesStore, 'findByFullPath' | 'findUserNamespace' | 'update'>;
  customAttributes: Pick<CustomAttributesStore, 'subjectIdsMatching'>;
  settings: Pick<SettingsService, 'values' | 'isVisibilityRestricted'>;
  accounts: Pick<AccountsService, 'createUser'>;
  lookup: Pick<Lookup, 'user'>;
  permissions: Pick<Permissions, 'isAdministrator' | 'canListUsers'>;
  removal: Pick<UserRemoval, 'remove'>;
  /** Secondary addresses: a primary address may not be anyone's secondary one either. */
  secondaryEmails: Pick<UserEmailsStore, 'findByEmail'>;
  /** System hooks' `user_create` and `user_rename`. */
  events?: Pick<CoordinatorEvents, 'publishSystemEvent'>;
}

/** The Users API: listing, administration of accounts, blocking. */
export class UsersService {
  constructor(private readonly deps: UsersServiceDeps) {}

  /** `GET /users`; filters restricted to administrators answer 403 (external, extern_uid) or are ignored. */
  async list(actor: Actor, query: UserListQuery, page: { offset: number; limit: number }): Promise<{ items: UserView[]; total: number }> {
    await this.ensureReadable(actor);
    const full = this.deps.permissions.isAdministrator(actor);
    const byIdentity = query.externUid && query.provider ? { externUid: query.externUid, provider: query.provider } : undefined;
    if (!full && (query.external !== undefined || byIdentity)) throw accessDenied();
    const filter: UserListFilter = {
      username: query.username,
      search: query.search,
      active: query.active === true,
      blocked: query.blocked === true,
      external: query.external === true,
      excludeExternal: query.excludeExternal === true,
      createdBefore: query.createdBefore,
      createdAfter: query.createdAfter,
      externUid: byIdentity?.externUid,
      provider: byIdentity?.provider,
      orderBy: query.orderBy,
      sort: query.sort,
    };
    if (full) {
      filter.admins = query.admins === true;
      filter.withoutProjects = query.withoutProjects === true;
      if (query.customAttributes && Object.keys(query.customAttributes).length > 0) {
        filter.ids = await this.deps.customAttributes.subjectIdsMatching('user', query.customAttributes);
      }
    }
    const { items, total } = await this.deps.users.list(filter, page);
    return { items: items.map((user) => ({ user, full })), total };
  }

  /** `GET /users/:id` (a numeric id). */
  async get(actor: Actor, ref: string): Promise<UserView> {
    await this.ensureReadable(actor);
    return { user: await this.find(ref), full: this.deps.permissions.isAdministrator(actor) };
  }

  /** A user whose keys the caller may read (`/users/:id/gpg_keys`): anyone's, unless anonymous reads are closed. */
  async readable(actor: Actor, ref: string): Promise<UserRecord> {
    await this.ensureReadable(actor);
    return this.find(ref);
  }

  /** As `readable`, for the routes GitLab resolves with its `find_user` (`/users/:id/status`, `/users/:id/events`): an id or a username. */
  async readableByIdOrUsername(actor: Actor, idOrUsername: string): Promise<UserRecord> {
    await this.ensureReadable(actor);
    return this.deps.lookup.user(idOrUsername);
  }

  /** A user an administrator acts on (keys, tokens of someone else); 403 for others. */
  async administered(actor: UserRecord, ref: string): Promise<UserRecord> {
    this.requireAdministrator(actor);
    return this.find(ref);
  }

  /** `POST /users` (administrators). */
  async create(actor: UserRecord, input: NewUserInput): Promise<UserRecord> {
    this.requireAdministrator(actor);
    const attributes = { ...input.attributes };
    if (input.resetPassword) delete attributes.password;
    validateUserAttributes(attributes);
    const email = attributes.email ?? '';
    const username = attributes.username ?? '';
    const { users, settings } = this.deps;
    if ((await users.findByEmail(email)) || (await this.deps.secondaryEmails.findByEmail(email))) throw taken('Email');
    if (await users.findByUsername(username)) throw taken('Username');
    await this.ensureNamespaceFree(username);

    const projectsLimit = Number((await settings.values()).default_projects_limit);
    try {
      const user = await this.createAccount(input, attributes, { email, username, projectsLimit });
      await this.deps.events?.publishSystemEvent({ name: 'user_create', user });
      return user;
    } catch (error) {
      // A concurrent request took the address or the name between the checks and the insert.
      if (!isUniqueViolation(error)) throw error;
      const emailTaken = (await users.findByEmail(email)) ?? (await this.deps.secondaryEmails.findByEmail(email));
      throw taken(emailTaken ? 'Email' : 'Username');
    }
  }

  private createAccount(input: NewUserInput, attributes: UserAttributes, identity: { email: string; username: string; projectsLimit: number }): Promise<UserRecord> {
    const { email, username } = identity;
    return this.deps.accounts.createUser({
      username,
      name: attributes.name ?? username,
      email,
      password: attributes.password ?? randomPassword(),
      is_admin: attributes.is_admin ?? false,
      projects_limit: attributes.projects_limit ?? identity.projectsLimit,
      can_create_group: attributes.can_create_group ?? true,
      external: attributes.external ?? false,
      confirmed: input.skipConfirmation ?? input.confirm === false,
      profile: {
        bio: attributes.bio,
        location: attributes.location,
        messenger_id: attributes.messenger_id,
        network_profile: attributes.network_profile,
        microblog_account: attributes.microblog_account,
        website_url: attributes.website_url,
        organization: attributes.organization,
        extern_uid: attributes.extern_uid,
        provider: attributes.provider,
      },
    });
  }

  /**
   * `PUT /users/:id` (administrators). A taken e-mail address or username answers 404, as the
   * contract documents for this call (GitLab's long-standing behaviour), not 409.
   */
  async update(actor: UserRecord, ref: string, attributes: UserAttributes): Promise<UserRecord> {
    const user = await this.administered(actor, ref);
    validateUserAttributes(attributes);
    const { users } = this.deps;
    if (attributes.email !== undefined) {
      const holder = await users.findByEmail(attributes.email);
      if (holder && holder.id !== user.id) throw taken('Email');
      if (await this.deps.secondaryEmails.findByEmail(attributes.email)) throw taken('Email');
    }
    if (attributes.username !== undefined && attributes.username.toLowerCase() !== user.username.toLowerCase()) {
      if (await users.findByUsername(attributes.username)) throw taken('Username');
      await this.ensureNamespaceFree(attributes.username);
    }
    const changes = await toChanges(attributes);
    let updated: UserRecord;
    try {
      updated = (await users.update(user.id, changes)) ?? user;
    } catch (error) {
      if (isUniqueViolation(error)) throw taken('Email');
      throw error;
    }
    if (attributes.username !== undefined || attributes.name !== undefined) await this.renameNamespace(updated);
    if (updated.username !== user.username) await this.deps.events?.publishSystemEvent({ name: 'user_rename', user: updated, oldUsername: user.username });
    return updated;
  }

  async remove(actor: UserRecord, ref: string, hardDelete: boolean): Promise<void> {
    await this.deps.removal.remove(await this.administered(actor, ref), hardDelete);
  }

  /** Blocks the user; null (GitLab 13's answer) when already blocked. An administrator cannot block themselves (nobody could unblock them). */
  async block(actor: UserRecord, ref: string): Promise<true | null> {
    const user = await this.administered(actor, ref);
    if (user.id === actor.id) throw accessDenied('The API initiating user cannot be blocked by the API');
    if (user.state === 'blocked') return null;
    await this.deps.users.update(user.id, { state: 'blocked' });
    return true;
  }

  /** Unblocks the user; false when already active, or banned (GitLab's `activate` has no way out of banned: unban does it). */
  async unblock(actor: UserRecord, ref: string): Promise<boolean> {
    const user = await this.administered(actor, ref);
    if (user.state === 'active' || user.state === 'banned') return false;
    await this.deps.users.update(user.id, { state: 'active' });
    return true;
  }

  /** `POST /users/:id/ban`: only an active user can be banned (403 "You cannot ban blocked users."). */
  async ban(actor: UserRecord, ref: string): Promise<true> {
    const user = await this.administered(actor, ref);
    if (user.state !== 'active') throw new GantryError('GANTRY_E_USER_STATE_REFUSED', `You cannot ban ${user.state} users.`);
    await this.deps.users.update(user.id, { state: 'banned' });
    return true;
  }

  /** `POST /users/:id/unban`: only a banned user can be unbanned. */
  async unban(actor: UserRecord, ref: string): Promise<true> {
    const user = await this.administered(actor, ref);
    if (user.state !== 'banned') throw new GantryError('GANTRY_E_USER_STATE_REFUSED', `You cannot unban ${user.state} users.`);
    await this.deps.users.update(user.id, { state: 'active' });
    return true;
  }

  /** Anonymous callers may read users unless the public visibility level is restricted. */
  private async ensureReadable(actor: Actor): Promise<void> {
    const restricted = actor === null && (await this.deps.settings.isVisibilityRestricted('public'));
    if (!this.deps.permissions.canListUsers(actor, restricted)) throw new GantryError('GANTRY_E_AUTHENTICATION_REQUIRED');
  }

  /** 403 unless the actor administers the instance. */
  requireAdministrator(actor: UserRecord): void {
    if (!this.deps.permissions.isAdministrator(actor)) throw accessDenied();
  }

  private async find(idOrUsername: string): Promise<UserRecord> {
    if (!/^\d+$/.test(idOrUsername)) throw new GantryError('GANTRY_E_USER_NOT_FOUND');
    return this.deps.lookup.user(idOrUsername);
  }

  /** A username is also the path of a top-level namespace; a group may already hold it. */
  private async ensureNamespaceFree(username: string): Promise<void> {
    const namespace = await this.deps.namespaces.findByFullPath(username);
    if (namespace && namespace.kind === 'group') {
      throw validationFailed({ username: ['has already been taken'] });
    }
  }

  private async renameNamespace(user: UserRecord): Promise<void> {
    const { namespaces } = this.deps;
    const namespace = await namespaces.findUserNamespace(user.id);
    if (!namespace) return;
    await namespaces.update(namespace.id, {
      name: user.username,
      path: user.username,
      full_path: user.username,
      full_name: user.name,
      updated_at: new Date().toISOString(),
    });
  }
}

/** Another account has the address or the name (the API answers this differently on create and update). */
function taken(resource: 'Email' | 'Username'): GantryError {
  return new GantryError('GANTRY_E_ALREADY_EXISTS', `${resource} has already been taken`, { resource });
}

async function toChanges(attributes: UserAttributes): Promise<UserChanges> {
  const changes: UserChanges = {};
  const copy = <K extends keyof UserAttributes & keyof UserChanges>(key: K) => {
    if (attributes[key] !== undefined) (changes as Record<string, unknown>)[key] = attributes[key];
  };
  for (const key of [
    'email', 'username', 'name', 'bio', 'location', 'messenger_id', 'network_profile', 'microblog_account',
    'website_url', 'organization', 'projects_limit', 'extern_uid', 'provider', 'is_admin', 'can_create_group', 'external',
  ] as const) {
    copy(key);
  }
  if (attributes.password !== undefined) {
    changes.password_digest = await hashPassword(attributes.password);
    changes.password_expires_at = new Date().toISOString();
  }
  return changes;
}
