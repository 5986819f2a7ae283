import type { UserEmailRecord } from '../../../../storage/types-user-emails.ts';

export interface UserEmailJson {
  id: number;
  email: string;
  confirmed_at: string | null;
}

/** GitLab's Email entity. */
export function serializeUserEmail(email: UserEmailRecord): UserEmailJson {
  return { id: email.id, email: email.email, confirmed_at: email.confirmed_at };
}
