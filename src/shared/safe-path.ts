/**
 * Archive entry names and link targets checked before anything is written: no absolute
 * paths, no `..` that leaves the destination, no symlink pointing outside it (zip slip).
 */
import path from 'node:path';

/** The entry's path relative to the destination, normalised, or null when it would escape. */
export function safeRelativeName(name: string): string | null {
  if (name.includes('\0')) return null;
  const slashed = name.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed)) return null;
  const parts: string[] = [];
  for (const part of slashed.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') return null;
    parts.push(part);
  }
  return parts.join('/');
}

/** Whether a symlink at `relativeName` with `target` stays inside the destination. */
export function symlinkStaysInside(relativeName: string, target: string): boolean {
  if (target.includes('\0') || target.startsWith('/') || /^[a-zA-Z]:/.test(target)) return false;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(relativeName), target.replace(/\\/g, '/')));
  return resolved !== '..' && !resolved.startsWith('../') && !path.posix.isAbsolute(resolved);
}

/** Whether `candidate` is `root` or lies below it (both absolute). */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
