import { randomBytes } from 'node:crypto';
import { validationFailed } from '../../../shared/errors.ts';
import { lengthErrors, type FieldLimits } from '../field-limits.ts';

/**
 * GitLab's User and UserDetail validations: name 255, bio 255, profile fields 500
 * (UserDetail::DEFAULT_FIELD_LENGTH); username, email, extern_uid and provider fill
 * 255-character columns; passwords at most 128 (Devise).
 */
export const USER_LIMITS = {
  name: 255, username: 255, email: 255, password: 128, bio: 255, location: 500, organization: 500, website_url: 500,
  messenger_id: 500, network_profile: 500, microblog_account: 500, extern_uid: 255, provider: 255,
} as const satisfies FieldLimits;

/** Profile fields settable on create and update, as stored. */
export interface UserAttributes {
  email?: string;
  username?: string;
  name?: string;
  password?: string;
  bio?: string;
  location?: string;
  messenger_id?: string;
  network_profile?: string;
  microblog_account?: string;
  website_url?: string;
  organization?: string;
  projects_limit?: number;
  extern_uid?: string;
  provider?: string;
  is_admin?: boolean;
  can_create_group?: boolean;
  external?: boolean;
}

const USERNAME = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-]$|^[a-zA-Z0-9_]$/;
const USERNAME_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";
export const EMAIL_FORMAT = /^[^@\s]+@[^@\s]+$/;

/** Model validations (GANTRY_E_VALIDATION_FAILED, field by field) for the attributes given. */
export function validateUserAttributes(attributes: UserAttributes): void {
  const { projects_limit: _limit, is_admin: _admin, can_create_group: _creator, external: _external, ...texts } = attributes;
  const errors: Record<string, string[]> = lengthErrors(USER_LIMITS, texts);
  const add = (field: string, reason: string) => (errors[field] ??= []).push(reason);
  if (attributes.email !== undefined && !EMAIL_FORMAT.test(attributes.email)) add('email', 'is invalid');
  if (attributes.username !== undefined) {
    const username = attributes.username;
    if (username === '') add('username', "can't be blank");
    else if (!USERNAME.test(username) || /\.(git|atom)$/i.test(username)) add('username', USERNAME_MESSAGE);
  }
  if (attributes.name !== undefined && attributes.name.trim() === '') add('name', "can't be blank");
  if (attributes.password !== undefined && attributes.password.length < 8) add('password', 'is too short (minimum is 8 characters)');
  if (attributes.projects_limit !== undefined && attributes.projects_limit < 0) {
    add('projects_limit', 'must be greater than or equal to 0');
  }
  if (attributes.projects_limit !== undefined && attributes.projects_limit > 2147483647) {
    add('projects_limit', 'must be less than or equal to 2147483647');
  }
  if (attributes.website_url !== undefined && attributes.website_url !== '' && !/^https?:\/\/\S+$/.test(attributes.website_url)) {
    add('website_url', 'is not a valid URL');
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

/** A password nobody knows, for accounts created with reset_password. */
export function randomPassword(): string {
  return randomBytes(24).toString('base64url');
}
