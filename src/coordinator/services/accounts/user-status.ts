import { validationFailed } from '../../../shared/errors.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { UserAvailability, UserStatusStore } from '../../../storage/types-user-status.ts';
import type { Actor } from '../access/permissions.ts';
import { EMOJI_NAMES } from '../planning/award-emoji-names.ts';
import type { UsersService } from './users.ts';

/** `clear_status_after` values and their length in minutes (GitLab's). */
export const CLEAR_STATUS_AFTER = { '30_minutes': 30, '3_hours': 180, '8_hours': 480, '1_day': 1440, '3_days': 4320, '7_days': 10080, '30_days': 43200 } as const;
export type ClearStatusAfter = keyof typeof CLEAR_STATUS_AFTER;

const MESSAGE_LIMIT = 100;
const DEFAULT_EMOJI = 'speech_balloon';

export interface UserStatusView {
  emoji: string | null;
  message: string | null;
  availability: UserAvailability;
  clear_status_at: string | null;
}

export interface UserStatusInput {
  emoji?: string;
  message?: string;
  availability?: UserAvailability;
  clearStatusAfter?: ClearStatusAfter;
}

export interface UserStatusServiceDeps {
  statuses: UserStatusStore;
  users: Pick<UsersService, 'readableByIdOrUsername'>;
  now?: () => Date;
}

const UNSET: UserStatusView = { emoji: null, message: null, availability: 'not_set', clear_status_at: null };

/** `GET/PUT /user/status` and `GET /users/:id/status`; a status past its `clear_status_at` reads as unset. */
export class UserStatusService {
  constructor(private readonly deps: UserStatusServiceDeps) {}

  own(actor: UserRecord): Promise<UserStatusView> {
    return this.current(actor.id);
  }

  /** Anyone's status (the user named by id or username), to those who may read users. */
  async of(actor: Actor, idOrUsername: string): Promise<UserStatusView> {
    return this.current((await this.deps.users.readableByIdOrUsername(actor, idOrUsername)).id);
  }

  /** Without emoji and message (and availability) the status is cleared, as in GitLab; a message alone gets `speech_balloon`. */
  async set(actor: UserRecord, input: UserStatusInput): Promise<UserStatusView> {
    const emoji = blankToUndefined(input.emoji);
    const message = blankToUndefined(input.message);
    if (emoji === undefined && message === undefined && input.availability === undefined) {
      await this.deps.statuses.clear(actor.id);
      return UNSET;
    }
    const problems: Record<string, string[]> = {};
    if (emoji !== undefined && !EMOJI_NAMES.has(emoji)) problems.emoji = ['is not a valid emoji name'];
    if (message !== undefined && message.length > MESSAGE_LIMIT) problems.message = [`is too long (maximum is ${MESSAGE_LIMIT} characters)`];
    if (Object.keys(problems).length > 0) throw validationFailed(problems);
    const now = this.now();
    const minutes = input.clearStatusAfter === undefined ? undefined : CLEAR_STATUS_AFTER[input.clearStatusAfter];
    const stored = await this.deps.statuses.set({
      user_id: actor.id,
      emoji: emoji ?? DEFAULT_EMOJI,
      message: message ?? null,
      availability: input.availability ?? 'not_set',
      clear_status_at: minutes === undefined ? null : new Date(now.getTime() + minutes * 60_000).toISOString(),
      updated_at: now.toISOString(),
    });
    return view(stored);
  }

  private async current(userId: number): Promise<UserStatusView> {
    const status = await this.deps.statuses.find(userId);
    if (!status) return UNSET;
    if (status.clear_status_at !== null && Date.parse(status.clear_status_at) <= this.now().getTime()) return UNSET;
    return view(status);
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }
}

function view(status: UserStatusView): UserStatusView {
  return { emoji: status.emoji, message: status.message, availability: status.availability, clear_status_at: status.clear_status_at };
}

function blankToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
