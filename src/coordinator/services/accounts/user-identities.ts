import { GantryError } from '../../../shared/errors.ts';
import type { UserRecord, UsersStore } from '../../../storage/types.ts';
import type { UsersService } from './users.ts';

export interface UserIdentitiesDeps {
  users: Pick<UsersStore, 'update'>;
  accounts: Pick<UsersService, 'administered'>;
}

/**
 * A user's external identities. Gantry keeps at most one per user (`provider` and `extern_uid`
 * on the user, shown as the one entry of `identities`); no sign-in goes through it.
 */
export class UserIdentitiesService {
  constructor(private readonly deps: UserIdentitiesDeps) {}

  /** `DELETE /users/:id/identities/:provider` (administrators): 404 "Identity Not Found" unless the user has that provider's. */
  async remove(actor: UserRecord, ref: string, provider: string): Promise<void> {
    const user = await this.deps.accounts.administered(actor, ref);
    if (user.provider === null || user.extern_uid === null || user.provider !== provider) throw new GantryError('GANTRY_E_IDENTITY_NOT_FOUND');
    await this.deps.users.update(user.id, { provider: null, extern_uid: null });
  }
}
