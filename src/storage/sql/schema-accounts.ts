import type { Generated } from '#deps/kysely';

/** Tables of the accounts additions (migrations 035, 038 and 040). */
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
  /** 1 for a confidential issue's or an internal note's event (migration 040). */
  confidential: number;
  created_at: string;
}

/** A user's last activity day, apart from the users row (migration 040). */
export interface UserActivityDaysTable {
  user_id: number;
  day: string;
}

/** A subkey of a user's GPG key (migration 040): upper-case hex, as gpg_keys'. */
export interface GpgKeySubkeysTable {
  id: Generated<number>;
  gpg_key_id: number;
  keyid: string;
  fingerprint: string;
}

/** Every primary (user_email_id null) and secondary address, lower-cased: unique by the key (migration 040). */
export interface EmailAddressesTable {
  address: string;
  user_id: number;
  user_email_id: number | null;
}
