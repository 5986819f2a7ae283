import { accessDenied, atLeastOneOf, GantryError, validationFailed } from '../../shared/errors.ts';
import { isUniqueViolation } from '../../storage/sql/database.ts';
import type { UserChanges, UserListFilter, UserRecord } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import type { PageRequest } from '../http/pagination.ts';
import type { Params } from '../http/params.ts';
import { hashPassword } from './accounts.ts';
import {
  randomPassword,
  readUserAttributes,
  requireParams,
  validateUserAttributes,
  type UserAttributes,
} from './users-input.ts';
import { UserRemoval } from './users-removal.ts';

const ORDERS = ['id', 'name', 'username', 'created_at', 'updated_at'] as const;

/** The Users API: listing, administration of accounts, blocking. */
export class UsersService {
  private readonly removal: UserRemoval;

  constructor(private readonly context: CoordinatorContext) {
    this.removal = new UserRemoval(context);
  }

  /** `GET /users`; filters restricted to administrators answer 403 (external, extern_uid) or are ignored. */
  async list(actor: UserRecord | null, params: Params, page: PageRequest): Promise<{ items: UserRecord[]; total: number }> {
    await this.ensureReadable(actor);
    const isAdmin = actor?.is_admin === true;
    const externUid = params.string('extern_uid');
    const provider = params.string('provider');
    if (!isAdmin && (params.bool('external') !== undefined || (externUid && provider))) throw accessDenied();
    const orderBy = params.oneOf('order_by', ORDERS);
    const filter: UserListFilter = {
      username: params.string('username'),
      search: params.string('search'),
      active: params.bool('active') === true,
      blocked: params.bool('blocked') === true,
      external: params.bool('external') === true,
      excludeExternal: params.bool('exclude_external') === true,
      createdBefore: params.dateTime('created_before'),
      createdAfter: params.dateTime('created_after'),
      externUid: externUid && provider ? externUid : undefined,
      provider: externUid && provider ? provider : undefined,
      orderBy,
      sort: params.oneOf('sort', ['asc', 'desc'] as const),
    };
    if (isAdmin) {
      filter.admins = params.bool('admins') === true;
      filter.withoutProjects = params.bool('without_projects') === true;
      const attributes = params.hash('custom_attributes');
      if (attributes && Object.keys(attributes).length > 0) {
        filter.ids = await this.context.stores.customAttributes.subjectIdsMatching('user', attributes);
      }
    }
    return this.context.stores.users.list(filter, { offset: page.offset, limit: page.perPage });
  }

  /** Anonymous callers may read users unless the public visibility level is restricted. */
  async ensureReadable(actor: UserRecord | null): Promise<void> {
    if (!actor && (await this.context.settings.isVisibilityRestricted('public'))) throw new GantryError('GANTRY_E_AUTHENTICATION_REQUIRED');
  }

  async find(idOrUsername: string): Promise<UserRecord> {
    if (!/^\d+$/.test(idOrUsername)) throw new GantryError('GANTRY_E_USER_NOT_FOUND');
    return this.context.lookup.user(idOrUsername);
  }

  /** `POST /users` (administrators). */
  async create(params: Params): Promise<UserRecord> {
    requireParams(params, ['email', 'name', 'username']);
    const resetPassword = params.bool('reset_password') === true;
    const attributes = readUserAttributes(params);
    if (attributes.password === undefined && !resetPassword) {
      throw atLeastOneOf(['password', 'reset_password']);
    }
    if (resetPassword) delete attributes.password;
    validateUserAttributes(attributes);
    const email = attributes.email ?? '';
    const username = attributes.username ?? '';
    if (await this.context.stores.users.findByEmail(email)) throw taken('Email');
    if (await this.context.stores.users.findByUsername(username)) throw taken('Username');
    await this.ensureNamespaceFree(username);

    const settings = await this.context.settings.values();
    try {
      const projectsLimit = Number(settings.default_projects_limit);
      return await this.createAccount(params, attributes, { email, username, projectsLimit });
    } catch (error) {
      // A concurrent request took the address or the name between the checks and the insert.
      if (!isUniqueViolation(error)) throw error;
      const emailTaken = await this.context.stores.users.findByEmail(email);
      throw taken(emailTaken ? 'Email' : 'Username');
    }
  }

  private createAccount(
    params: Params,
    attributes: UserAttributes,
    identity: { email: string; username: string; projectsLimit: number },
  ): Promise<UserRecord> {
    const { email, username } = identity;
    return this.context.accounts.createUser({
      username,
      name: attributes.name ?? username,
      email,
      password: attributes.password ?? randomPassword(),
      is_admin: attributes.is_admin ?? false,
      projects_limit: attributes.projects_limit ?? identity.projectsLimit,
      can_create_group: attributes.can_create_group ?? true,
      external: attributes.external ?? false,
      confirmed: params.bool('skip_confirmation') ?? params.bool('confirm') === false,
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
  async update(idOrUsername: string, params: Params): Promise<UserRecord> {
    const user = await this.find(idOrUsername);
    const attributes = readUserAttributes(params);
    validateUserAttributes(attributes);
    const { users } = this.context.stores;
    if (attributes.email !== undefined) {
      const holder = await users.findByEmail(attributes.email);
      if (holder && holder.id !== user.id) throw taken('Email');
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
    return updated;
  }

  async remove(idOrUsername: string, hardDelete: boolean): Promise<void> {
    const user = await this.find(idOrUsername);
    await this.removal.remove(user, hardDelete);
  }

  /** Blocks the user; false when already blocked. */
  async block(idOrUsername: string): Promise<boolean> {
    const user = await this.find(idOrUsername);
    if (user.state === 'blocked') return false;
    await this.context.stores.users.update(user.id, { state: 'blocked' });
    return true;
  }

  /** Unblocks the user; false when already active. */
  async unblock(idOrUsername: string): Promise<boolean> {
    const user = await this.find(idOrUsername);
    if (user.state === 'active') return false;
    await this.context.stores.users.update(user.id, { state: 'active' });
    return true;
  }

  /** A username is also the path of a top-level namespace; a group may already hold it. */
  private async ensureNamespaceFree(username: string): Promise<void> {
    const namespace = await this.context.stores.namespaces.findByFullPath(username);
    if (namespace && namespace.kind === 'group') {
      throw validationFailed({ username: ['has already been taken'] });
    }
  }

  private async renameNamespace(user: UserRecord): Promise<void> {
    const { namespaces } = this.context.stores;
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
