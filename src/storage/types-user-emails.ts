/** A user's secondary e-mail address (GitLab's Email). */
export interface UserEmailRecord {
  id: number;
  user_id: number;
  email: string;
  confirmed_at: string | null;
  created_at: string;
}

export type NewUserEmail = Omit<UserEmailRecord, 'id'>;

export interface UserEmailsStore {
  listForUser(userId: number, page: { offset: number; limit: number }): Promise<{ items: UserEmailRecord[]; total: number }>;
  find(userId: number, emailId: number): Promise<UserEmailRecord | undefined>;
  /** Compared case-insensitively. */
  findByEmail(email: string): Promise<UserEmailRecord | undefined>;
  /** The user's confirmed secondary addresses (GitLab counts only those as the user's own), at most 100. */
  confirmedAddresses(userId: number): Promise<string[]>;
  /** Throws a unique violation when another row has the address. */
  create(email: NewUserEmail): Promise<UserEmailRecord>;
  /** false when there was no such address of the user. */
  delete(userId: number, emailId: number): Promise<boolean>;
}

/** Users' last activity day (GitLab's `last_activity_on`), touched at most once a day, apart from the users row. */
export interface UserActivityStore {
  /** Sets the day when the user's is earlier (or unset); no-op otherwise. */
  touch(userId: number, day: string): Promise<void>;
  /** The activity day of each of these users that has one. */
  daysOf(userIds: readonly number[]): Promise<Map<number, string>>;
  /** Users active on or after `from` (a date), by id. */
  activeSince(from: string, page: { offset: number; limit: number }): Promise<{ items: Array<{ username: string; last_activity_on: string }>; total: number }>;
}
