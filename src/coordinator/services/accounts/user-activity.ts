import { accessDenied, validationFailed } from '../../../shared/errors.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { UserActivityStore } from '../../../storage/types-user-emails.ts';
import type { Permissions } from '../access/permissions.ts';

/** GitLab's default `from` of `/user/activities`: six months back. */
const DEFAULT_MONTHS_BACK = 6;

export interface UserActivityDeps {
  activity: UserActivityStore;
  permissions: Pick<Permissions, 'isAdministrator'>;
  now?: () => Date;
}

/**
 * Users' `last_activity_on` (a date): touched by a push, written at most once a day per user as
 * GitLab does; read by administrators at `/user/activities`.
 */
export class UserActivity {
  constructor(private readonly deps: UserActivityDeps) {}

  /** No write when the user's day is already today's. */
  async touched(user: UserRecord): Promise<void> {
    const today = this.now().toISOString().slice(0, 10);
    if (user.last_activity_on !== null && user.last_activity_on >= today) return;
    await this.deps.activity.touch(user.id, today);
  }

  /** `GET /user/activities` (administrators): users active on or after `from` (a date, default six months ago). */
  async since(actor: UserRecord, from: string | undefined, page: { offset: number; limit: number }) {
    if (!this.deps.permissions.isAdministrator(actor)) throw accessDenied();
    return this.deps.activity.activeSince(from === undefined ? this.defaultFrom() : dateOf(from), page);
  }

  private defaultFrom(): string {
    const from = this.now();
    from.setUTCMonth(from.getUTCMonth() - DEFAULT_MONTHS_BACK);
    return from.toISOString().slice(0, 10);
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }
}

function dateOf(from: string): string {
  const day = from.slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day))) throw validationFailed({ from: ['is invalid'] });
  return day;
}
