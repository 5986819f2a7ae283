import { accessDenied, validationFailed } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { UserActivityStore } from '../../../storage/types-user-emails.ts';
import type { Permissions } from '../access/permissions.ts';

/** GitLab's default `from` of `/user/activities`: six months back. */
const DEFAULT_MONTHS_BACK = 6;

export interface UserActivityDeps {
  activity: UserActivityStore;
  permissions: Pick<Permissions, 'isAdministrator'>;
  logger: Pick<Logger, 'warn'>;
  now?: () => Date;
}

/**
 * Users' `last_activity_on` (a date): touched by a push and by authenticated API requests, as
 * GitLab does, written at most once a day per user by each coordinator (the users seen today
 * are remembered here: at most one entry per user, forgotten when the day changes); read by
 * administrators at `/user/activities` and in users' records.
 */
export class UserActivity {
  private day = '';
  private readonly seenToday = new Set<number>();

  constructor(private readonly deps: UserActivityDeps) {}

  /** No write when this coordinator already wrote the user's day today. */
  async touched(user: Pick<UserRecord, 'id'>): Promise<void> {
    const today = this.today();
    if (this.seenToday.has(user.id)) return;
    this.seenToday.add(user.id);
    try {
      await this.deps.activity.touch(user.id, today);
    } catch (error) {
      this.seenToday.delete(user.id);
      throw error;
    }
  }

  /** An authenticated API request: the day is written in the background, never delaying the answer. */
  requested(user: Pick<UserRecord, 'id'>): void {
    if (this.today() === this.day && this.seenToday.has(user.id)) return;
    this.touched(user).catch((error: unknown) => this.deps.logger.warn({ err: error, user: user.id }, 'activity: recording the day failed'));
  }

  /** The records with their `last_activity_on` as stored apart from the users rows. */
  async withDays(users: readonly UserRecord[]): Promise<UserRecord[]> {
    const days = await this.deps.activity.daysOf(users.map((user) => user.id));
    return users.map((user) => ({ ...user, last_activity_on: days.get(user.id) ?? null }));
  }

  async withDay(user: UserRecord): Promise<UserRecord> {
    const [filled] = await this.withDays([user]);
    return filled ?? user;
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

  private today(): string {
    const today = this.now().toISOString().slice(0, 10);
    if (today !== this.day) {
      this.day = today;
      this.seenToday.clear();
    }
    return today;
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
