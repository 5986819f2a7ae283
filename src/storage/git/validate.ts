import { badRequestMessage, invalidParam } from '../../shared/errors.ts';

/**
 * Guards for every revision, ref name and path handed to git: nothing may be read as an
 * option, break the line-based cat-file protocol, or leave the repository tree.
 */

const CONTROL = /[\u0000-\u001f\u007f]/;

/** A revision we pass on (branch, tag, full ref, SHA, `rev~n`): false means "cannot exist". */
export function isSafeRevision(revision: string): boolean {
  return revision.length > 0 && revision.length <= 1024 && !revision.startsWith('-') && !CONTROL.test(revision);
}

/** A cat-file object name such as `rev^{commit}` or `rev:path`: one line, not an option. */
export function isSafeObjectName(name: string): boolean {
  return name.length > 0 && name.length <= 8192 && !name.startsWith('-') && !CONTROL.test(name);
}

/** A path inside a revision (tree or blob lookup). */
export function isSafeLookupPath(value: string): boolean {
  return !CONTROL.test(value) && value.length <= 4096;
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

/** Validates a file path of a commit action; returns it unchanged or throws a 400. */
export function checkCommitPath(value: string): string {
  if (value.length === 0 || value.length > 4096 || CONTROL.test(value)) throw badRequestMessage(PATH_MESSAGES.invalid);
  if (value.startsWith('/')) throw badRequestMessage(PATH_MESSAGES.absolute);
  const segments = value.split('/');
  if (segments.some((segment) => segment === '..')) throw badRequestMessage(PATH_MESSAGES.traversal);
  if (segments.some((segment) => segment.toLowerCase() === '.git')) throw badRequestMessage(PATH_MESSAGES.gitDirectory);
  if (segments.some((segment) => segment === '' || segment === '.')) throw badRequestMessage(PATH_MESSAGES.invalid);
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

export function requireRevision(revision: string, name = 'ref'): string {
  if (!isSafeRevision(revision)) throw invalidParam(name, 'is invalid');
  return revision;
}
