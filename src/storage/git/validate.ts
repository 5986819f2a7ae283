import { GantryError } from '../../shared/errors.ts';

/**
 * Guards for every revision, ref name and path handed to git: nothing may be read as an
 * option, break the line-based cat-file protocol, leave the repository tree, or use revision
 * syntax that makes a long-lived `git cat-file` die (`main:./x`, `main@{1000}`, `@{u}`).
 */

const CONTROL = /[\u0000-\u001f\u007f]/;
/** A full or abbreviated object id (git needs at least 4 hex digits). */
const OBJECT_ID = /^[0-9a-fA-F]{4,64}$/;
/** Ancestry steps after a name: `~`, `~3`, `^`, `^2`, in any number. */
const ANCESTRY = /^(?:[~^]\d{0,6})*$/;
const MAX_REVISION_LENGTH = 1024;
const MAX_PATH_LENGTH = 4096;

/**
 * A revision a client may name: a branch, a tag, a full ref (`refs/heads/x`), `HEAD`, or a
 * full or abbreviated object id, optionally followed by `~N`/`^N` steps. Anything else (`:`,
 * `^{`, `@{`, `..`, a leading `-`, control characters, spaces) is refused; callers answer it
 * as they answer an unknown revision.
 */
export function isValidRevision(revision: string): boolean {
  if (revision.length === 0 || revision.length > MAX_REVISION_LENGTH) return false;
  const cut = revision.search(/[~^]/);
  const name = cut < 0 ? revision : revision.slice(0, cut);
  if (cut >= 0 && !ANCESTRY.test(revision.slice(cut))) return false;
  return name === 'HEAD' || OBJECT_ID.test(name) || isValidRefName(name);
}

/** A full or abbreviated object id. */
export function isObjectId(value: string): boolean {
  return OBJECT_ID.test(value);
}

/**
 * A path inside a revision (tree or blob lookup), after normalizeLookupPath: "" (the root) or
 * non-empty segments, none of them `.` or `..` (git reads `rev:./x` as relative to a working
 * tree and dies in a bare repository), no control characters.
 */
export function isValidLookupPath(value: string): boolean {
  if (value === '') return true;
  if (value.length > MAX_PATH_LENGTH || CONTROL.test(value)) return false;
  return value.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/** Strips leading/trailing slashes of a tree path ("" is the root). */
export function normalizeLookupPath(value: string): string {
  return value.replace(/^\/+/, '').replace(/\/+$/, '');
}

export const PATH_MESSAGES = {
  traversal: 'Your changes could not be committed, because the file path contains /../',
  absolute: 'Your changes could not be committed, because the file path must be relative to the repository root',
  gitDirectory: 'Your changes could not be committed, because the file path contains a .git directory',
  invalid: 'Your changes could not be committed, because the file path is invalid',
} as const;

/** Validates a file path of a commit action; returns it unchanged or throws GANTRY_E_FILE_PATH_INVALID. */
export function checkCommitPath(value: string): string {
  if (value.length === 0 || value.length > MAX_PATH_LENGTH || CONTROL.test(value)) throw new GantryError('GANTRY_E_FILE_PATH_INVALID', PATH_MESSAGES.invalid);
  if (value.startsWith('/')) throw new GantryError('GANTRY_E_FILE_PATH_INVALID', PATH_MESSAGES.absolute);
  const segments = value.split('/');
  if (segments.some((segment) => segment === '..')) throw new GantryError('GANTRY_E_FILE_PATH_INVALID', PATH_MESSAGES.traversal);
  if (segments.some((segment) => segment.toLowerCase() === '.git')) throw new GantryError('GANTRY_E_FILE_PATH_INVALID', PATH_MESSAGES.gitDirectory);
  if (segments.some((segment) => segment === '' || segment === '.')) throw new GantryError('GANTRY_E_FILE_PATH_INVALID', PATH_MESSAGES.invalid);
  return value;
}

/** git check-ref-format rules for a branch or tag short name. */
export function isValidRefName(name: string): boolean {
  if (name.length === 0 || name.length > 255) return false;
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if (name === '@' || name === 'HEAD') return false;
  if (CONTROL.test(name) || /[ ~^:?*[\\]/.test(name)) return false;
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return false;
  return name.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
}
