import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { SettingsStore } from '../../../../storage/types.ts';
import type { SettingsService } from '../../instance/settings.ts';

/** GitLab's prefix of registration tokens (projects, groups, the instance). */
const REGISTRATION_TOKEN_PREFIX = 'GR1348941';

/** A new registration token (what `runners_token` and `runners_registration_token` hold). */
export function newRegistrationToken(): string {
  return `${REGISTRATION_TOKEN_PREFIX}${randomBytes(15).toString('base64url')}`;
}

/** A new runner token of a runner registered with a registration token: 20 URL-safe characters, the first 8 of which name the runner. */
export function newRunnerToken(): string {
  return randomBytes(15).toString('base64url');
}

/** GitLab's `CREATED_RUNNER_TOKEN_PREFIX`: runners created by a user (`POST /user/runners`) get `glrt-` tokens. */
export const AUTHENTICATION_TOKEN_PREFIX = 'glrt-';

/** A new runner authentication token of a runner created by a user: `glrt-` and 20 URL-safe characters. */
export function newAuthenticationToken(): string {
  return `${AUTHENTICATION_TOKEN_PREFIX}${randomBytes(15).toString('base64url')}`;
}

/** Compares secrets in constant time (for equal lengths). */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The application setting holding the instance's registration token (shared runners). */
export const INSTANCE_TOKEN_SETTING = 'runners_registration_token';

export interface InstanceRegistrationTokenDeps {
  /** Read fresh on every check: another coordinator may have reset the token. */
  store: Pick<SettingsStore, 'load'>;
  settings: Pick<SettingsService, 'update'>;
}

/**
 * The instance registration token: an application setting administrators read in
 * `GET /application/settings`, generated the first time it is needed (at start-up) and
 * replaced by a reset. It is not among the settings `PUT /application/settings` takes.
 */
export class InstanceRegistrationToken {
  constructor(private readonly deps: InstanceRegistrationTokenDeps) {}

  async current(): Promise<string> {
    const stored = (await this.deps.store.load())?.settings[INSTANCE_TOKEN_SETTING];
    if (typeof stored === 'string' && stored !== '') return stored;
    return this.reset();
  }

  async reset(): Promise<string> {
    const token = newRegistrationToken();
    await this.deps.settings.update({ [INSTANCE_TOKEN_SETTING]: token });
    return token;
  }

  async matches(token: string): Promise<boolean> {
    return sameSecret(token, await this.current());
  }
}
