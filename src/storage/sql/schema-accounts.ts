import type { Generated } from '#deps/kysely';

/** Tables of the accounts additions (migrations 035 and 038). */
export interface UserStatusesTable {
  user_id: number;
  emoji: string;
  message: string | null;
  availability: string;
  /** ISO time after which the status reads as unset; null to keep it. */
  clear_status_at: string | null;
  updated_at: string;
}

/** A user's secondary e-mail address (migration 038). */
export interface UserEmailsTable {
  id: Generated<number>;
  user_id: number;
  email: string;
  confirmed_at: string | null;
  created_at: string;
}

/** One activity event (migration 038); `push_data` and `note` are JSON text. */
export interface EventsTable {
  id: Generated<number>;
  project_id: number;
  author_id: number;
  action: string;
  target_type: string | null;
  target_id: number | null;
  target_iid: number | null;
  target_title: string | null;
  push_data: string | null;
  note: string | null;
  created_at: string;
}
