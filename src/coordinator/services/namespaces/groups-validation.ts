import { validationFailed } from '../../../shared/errors.ts';
import { exceedsLength, tooLongMessage, type FieldLimits } from '../field-limits.ts';

/** GitLab's Namespace validations: name and path 255, description 255 (Namespace::Detail). */
export const GROUP_LIMITS = { name: 255, path: 255, description: 255 } as const satisfies FieldLimits;

/** GitLab's namespace path rule: letters, digits, `_`, `-`, `.`; not starting with `-`, not ending in `.git`/`.atom`. */
const PATH_FORMAT = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*$/;
const PATH_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";
const NAME_FORMAT = /^[\p{L}\p{N}\p{Extended_Pictographic}_][\p{L}\p{N}\p{Pd}\p{Extended_Pictographic}_(). ]*$/u;
const NAME_MESSAGE = "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.";

/** Top-level paths taken by the web and API routes. */
const RESERVED_TOP_LEVEL = new Set([
  '-', '.well-known', 'admin', 'api', 'assets', 'dashboard', 'explore', 'files', 'groups', 'help', 'import', 'jwt', 'login',
  'new', 'oauth', 'profile', 'projects', 'public', 'robots.txt', 'search', 'sent_notifications', 'snippets', 'u', 'uploads',
  'users',
]);

/** Field errors collected the way a model validation reports them (`{"message":{"field":[...]}}`). */
export class FieldErrors {
  private readonly errors: Record<string, string[]> = {};

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  throwIfAny(): void {
    if (Object.keys(this.errors).length > 0) throw validationFailed(this.errors);
  }
}

export function checkGroupName(name: string, errors: FieldErrors): void {
  if (name.trim() === '') errors.add('name', "can't be blank");
  else if (!NAME_FORMAT.test(name)) errors.add('name', NAME_MESSAGE);
  if (exceedsLength(name, GROUP_LIMITS.name)) errors.add('name', tooLongMessage(GROUP_LIMITS.name));
}

export function checkGroupPath(path: string, topLevel: boolean, errors: FieldErrors): void {
  if (path.trim() === '') {
    errors.add('path', "can't be blank");
    return;
  }
  if (!PATH_FORMAT.test(path) || /\.(git|atom)$/i.test(path)) errors.add('path', PATH_MESSAGE);
  if (exceedsLength(path, GROUP_LIMITS.path)) errors.add('path', tooLongMessage(GROUP_LIMITS.path));
  if (topLevel && RESERVED_TOP_LEVEL.has(path.toLowerCase())) errors.add('path', `${path} is a reserved name`);
}

export function checkDescription(description: string, errors: FieldErrors): void {
  if (exceedsLength(description, GROUP_LIMITS.description)) errors.add('description', tooLongMessage(GROUP_LIMITS.description));
}
