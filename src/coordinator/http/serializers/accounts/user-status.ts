import type { UserStatusView } from '../../../services/accounts/user-status.ts';

export interface UserStatusJson extends UserStatusView {
  message_html: string;
}

/** GitLab's UserStatus entity; `message_html` is the message HTML-escaped (emoji names stay text). */
export function serializeUserStatus(status: UserStatusView): UserStatusJson {
  return { ...status, message_html: escapeHtml(status.message ?? '') };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
