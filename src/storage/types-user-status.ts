export const USER_AVAILABILITIES = ['not_set', 'busy'] as const;
export type UserAvailability = (typeof USER_AVAILABILITIES)[number];

/** A user's status as set (GitLab's UserStatus). */
export interface UserStatusRecord {
  user_id: number;
  emoji: string;
  message: string | null;
  availability: UserAvailability;
  clear_status_at: string | null;
  updated_at: string;
}

export interface UserStatusStore {
  find(userId: number): Promise<UserStatusRecord | undefined>;
  /** Sets (or replaces) the user's status. */
  set(status: UserStatusRecord): Promise<UserStatusRecord>;
  clear(userId: number): Promise<void>;
}
