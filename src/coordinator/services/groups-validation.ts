import { validationFailed } from '../../shared/errors.ts';

const MAX_LENGTH = 255;

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
  if (name.length > MAX_LENGTH) errors.add('name', `is too long (maximum is ${MAX_LENGTH} characters)`);
}

export function checkGroupPath(path: string, topLevel: boolean, errors: FieldErrors): void {
  if (path.trim() === '') {
    errors.add('path', "can't be blank");
    return;
  }
  if (!PATH_FORMAT.test(path) || /\.(git|atom)$/i.test(path)) errors.add('path', PATH_MESSAGE);
  if (path.length > MAX_LENGTH) errors.add('path', `is too long (maximum is ${MAX_LENGTH} characters)`);
  if (topLevel && RESERVED_TOP_LEVEL.has(path.toLowerCase())) errors.add('path', `${path} is a reserved name`);
}

export function checkDescription(description: string, errors: FieldErrors): void {
  if (description.length > MAX_LENGTH) errors.add('description', `is too long (maximum is ${MAX_LENGTH} characters)`);
}
