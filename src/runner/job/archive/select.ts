/**
 * Which files of the project an artifacts or cache entry takes: `paths` globs (a matching
 * directory brings everything below it), `exclude` globs (same rule), `untracked` (files
 * git does not track). `*` stays inside one directory, `**` crosses them (doublestar style).
 */
import picomatch from 'picomatch';

export interface Selection {
  paths: readonly string[];
  exclude?: readonly string[];
  untracked?: boolean;
}

export function normalisePattern(pattern: string): string {
  return pattern.trim().replace(/^(\.\/)+/, '').replace(/\/+$/, '');
}

function matcher(patterns: readonly string[]): (name: string) => boolean {
  const cleaned = patterns.map(normalisePattern).filter((pattern) => pattern !== '');
  if (cleaned.length === 0) return () => false;
  const test = picomatch(cleaned, { dot: true });
  return (name) => {
    // The entry or any directory above it.
    for (let candidate = name; candidate !== ''; candidate = candidate.includes('/') ? candidate.slice(0, candidate.lastIndexOf('/')) : '') {
      if (test(candidate)) return true;
    }
    return false;
  };
}

export interface Selector {
  /** Whether the entry at `name` (relative, no trailing slash) is taken. */
  (name: string, type: string): boolean;
  /** How many entries each pattern brought, for the `found N matching files` lines. */
  readonly counts: Map<string, number>;
  untrackedCount: number;
}

export function selector(selection: Selection, tracked: ReadonlySet<string>): Selector {
  const include = selection.paths.map((pattern) => [pattern, matcher([pattern])] as const);
  const exclude = matcher(selection.exclude ?? []);
  const counts = new Map<string, number>(selection.paths.map((pattern) => [pattern, 0]));
  const select = ((name: string, type: string): boolean => {
    if (name === '.git' || name.startsWith('.git/')) return false;
    if (exclude(name)) return false;
    let taken = false;
    for (const [pattern, test] of include) {
      if (test(name)) {
        counts.set(pattern, (counts.get(pattern) ?? 0) + 1);
        taken = true;
      }
    }
    if (!taken && selection.untracked && type !== 'directory' && !tracked.has(name)) {
      select.untrackedCount++;
      taken = true;
    }
    return taken;
  }) as Selector;
  Object.defineProperty(select, 'counts', { value: counts });
  select.untrackedCount = 0;
  return select;
}

/**
 * The runner's line for each pattern once the files are collected: how many entries it
 * brought, or a warning that it brought none (gitlab-runner's wording, artifacts and caches).
 */
export function matchReport(select: Selector, projectDir: string): Array<{ warning: boolean; text: string }> {
  return [...select.counts].map(([pattern, count]) => count > 0
    ? { warning: false, text: `${pattern}: found ${count} matching artifact files and directories` }
    : { warning: true, text: `${pattern}: no matching files. Ensure that the artifact path is relative to the working directory (${projectDir})` });
}

/**
 * The directories worth copying out for these patterns: the literal leading directories of
 * each (`out/` → `out`, `build/**\/*.o` → `build`), or the whole project (`''`) when a
 * pattern starts with a glob or untracked files are wanted.
 */
export function copyRoots(selection: Selection): string[] {
  if (selection.untracked) return [''];
  const roots = new Set<string>();
  for (const raw of selection.paths) {
    const pattern = normalisePattern(raw);
    if (pattern === '') continue;
    const parts = pattern.split('/');
    // A pattern written with a trailing slash names a directory: copy it out whole.
    const directoryParts = raw.trim().endsWith('/') ? parts : parts.slice(0, -1);
    const literal: string[] = [];
    for (const part of directoryParts) {
      if (picomatch.scan(part).isGlob || part === '..') break;
      literal.push(part);
    }
    roots.add(literal.join('/'));
  }
  const sorted = [...roots].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const root of sorted) {
    if (kept.some((parent) => parent === '' || root === parent || root.startsWith(`${parent}/`))) continue;
    kept.push(root);
  }
  return kept;
}
