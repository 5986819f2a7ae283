import { GantryError, validationFailed } from '../../../shared/errors.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { UserRecord, UsersStore } from '../../../storage/types.ts';
import type { UserEmailRecord, UserEmailsStore } from '../../../storage/types-user-emails.ts';
import { EMAIL_FORMAT } from './users-input.ts';
import type { UsersService } from './users.ts';

const EMAIL_LIMIT = 255;

/** Whose addresses a route works on: the caller's own (`/user/emails`) or a user's, by an administrator (`/users/:id/emails`). */
export type EmailOwner = { kind: 'self'; actor: UserRecord } | { kind: 'administer'; actor: UserRecord; ref: string };

export interface UserEmailsServiceDeps {
  emails: UserEmailsStore;
  users: Pick<UsersStore, 'findByEmail'>;
  accounts: Pick<UsersService, 'administered'>;
  now?: () => Date;
}

/**
 * Secondary e-mail addresses (GitLab's Emails API). An address is unique across every user's
 * primary and secondary addresses, compared case-insensitively. Gantry sends no confirmation
 * mail: an address added by its owner stays unconfirmed (`confirmed_at` null); an administrator
 * adding one with `skip_confirmation` confirms it at once.
 */
export class UserEmailsService {
  constructor(private readonly deps: UserEmailsServiceDeps) {}

  async list(owner: EmailOwner, page: { offset: number; limit: number }): Promise<{ items: UserEmailRecord[]; total: number }> {
    return this.deps.emails.listForUser((await this.ownerOf(owner)).id, page);
  }

  async get(owner: EmailOwner, emailId: number): Promise<UserEmailRecord> {
    const email = await this.deps.emails.find((await this.ownerOf(owner)).id, emailId);
    if (!email) throw new GantryError('GANTRY_E_EMAIL_NOT_FOUND');
    return email;
  }

  async add(owner: EmailOwner, address: string, skipConfirmation: boolean): Promise<UserEmailRecord> {
    const user = await this.ownerOf(owner);
    const email = address.trim();
    if (email.length > EMAIL_LIMIT) throw validationFailed({ email: [`is too long (maximum is ${EMAIL_LIMIT} characters)`] });
    if (!EMAIL_FORMAT.test(email)) throw validationFailed({ email: ['is invalid'] });
    if (await this.taken(email)) throw taken();
    const now = (this.deps.now?.() ?? new Date()).toISOString();
    const confirmed = owner.kind === 'administer' && skipConfirmation;
    try {
      return await this.deps.emails.create({ user_id: user.id, email, confirmed_at: confirmed ? now : null, created_at: now });
    } catch (error) {
      // Another request added the address between the check and the insert.
      if (isUniqueViolation(error)) throw taken();
      throw error;
    }
  }

  async remove(owner: EmailOwner, emailId: number): Promise<void> {
    if (!(await this.deps.emails.delete((await this.ownerOf(owner)).id, emailId))) throw new GantryError('GANTRY_E_EMAIL_NOT_FOUND');
  }

  /** Someone's primary or secondary address (for the users service's own checks too). */
  async taken(email: string): Promise<boolean> {
    return (await this.deps.users.findByEmail(email)) !== undefined || (await this.deps.emails.findByEmail(email)) !== undefined;
  }

  private async ownerOf(owner: EmailOwner): Promise<UserRecord> {
    return owner.kind === 'self' ? owner.actor : this.deps.accounts.administered(owner.actor, owner.ref);
  }
}

function taken(): GantryError {
  return validationFailed({ email: ['has already been taken'] });
}
