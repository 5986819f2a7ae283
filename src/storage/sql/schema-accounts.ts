/** Tables of the accounts additions (migration 035). */
export interface UserStatusesTable {
  user_id: number;
  emoji: string;
  message: string | null;
  availability: string;
  /** ISO time after which the status reads as unset; null to keep it. */
  clear_status_at: string | null;
  updated_at: string;
}
