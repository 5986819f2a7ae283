/**
 * Which files of the project an artifacts or cache entry takes, as gitlab-runner's archiver
 * does: `paths` globs (a matching directory brings everything below it), `untracked` (files
 * git does not track), less the entries an `exclude` glob matches (each entry by its own path:
 * excluding a directory leaves what is inside it, `dir/**` excludes that).
 * `*` stays inside one directory, `**` crosses them (doublestar style).
 */
import path from 'node:path';
import picomatch from 'picomatch';

export interface Selection {
  paths: readonly string[];
  exclude?: readonly string[];
  untracked?: boolean;
}

/** A pattern as a path below the project directory: `./`, `dir/..` and doubled slashes resolved, as the archiver's `filepath.Rel` leaves it. */
export function normalisePattern(pattern: string): string {
  const trimmed = pattern.trim();
  return (trimmed === '' ? '' : path.posix.normalize(trimmed)).replace(/^(\.\/)+/, '').replace(/\/+$/, '');
}

/** `.` or `./`: the project directory itself, all of it (gitlab-runner walks it whole). */
function namesProjectDirectory(pattern: string): boolean {
  const parts = pattern.trim().split('/').filter((part) => part !== '');
  return parts.length > 0 && parts.every((part) => part === '.');
}

/** Whether `name` matches the pattern; `recursive`: or one of the directories above it does. */
function matcher(pattern: string, recursive: boolean): (name: string) => boolean {
  if (namesProjectDirectory(pattern)) return () => recursive;
  const cleaned = normalisePattern(pattern);
  if (cleaned === '') return () => false;
  const test = picomatch(cleaned, { dot: true });
  if (!recursive) return test;
  return (name) => {
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
  /** How many entries each `exclude` pattern kept out (the first matching one counts). */
  readonly excluded: Map<string, number>;
  /** Whether untracked files were asked for, and how many came. */
  readonly untracked: boolean;
  untrackedCount: number;
  /** How each pattern was given (the job's variables expanded, before it was made relative), for the report. */
  readonly labels: ReadonlyMap<string, string>;
}

export function selector(selection: Selection, tracked: ReadonlySet<string>, labels: ReadonlyMap<string, string> = new Map()): Selector {
  const include = selection.paths.map((pattern) => [pattern, matcher(pattern, true)] as const);
  const exclude = (selection.exclude ?? []).map((pattern) => [pattern, matcher(pattern, false)] as const);
  const counts = new Map<string, number>(selection.paths.map((pattern) => [pattern, 0]));
  const excluded = new Map<string, number>();
  const select = ((name: string, type: string): boolean => {
    if (name === '.git' || name.startsWith('.git/')) return false;
    const brought = include.filter(([, test]) => test(name)).map(([pattern]) => pattern);
    // `git ls-files -o` lists files (links too), whether a path brought them or not.
    const untracked = selection.untracked === true && type !== 'directory' && !tracked.has(name);
    if (brought.length === 0 && !untracked) return false;
    const rule = exclude.find(([, test]) => test(name))?.[0];
    if (rule !== undefined) {
      // gitlab-runner checks the exclusions each time a path or the untracked list brings the entry.
      excluded.set(rule, (excluded.get(rule) ?? 0) + brought.length + (untracked ? 1 : 0));
      return false;
    }
    for (const pattern of brought) counts.set(pattern, (counts.get(pattern) ?? 0) + 1);
    if (untracked) select.untrackedCount++;
    return true;
  }) as Selector;
  Object.defineProperty(select, 'counts', { value: counts });
  Object.defineProperty(select, 'excluded', { value: excluded });
  Object.defineProperty(select, 'untracked', { value: selection.untracked === true });
  Object.defineProperty(select, 'labels', { value: labels });
  select.untrackedCount = 0;
  return select;
}

/**
 * The runner's lines once the files are collected, in gitlab-runner's wording (artifacts and
 * caches alike), each pattern as the job gave it (its variables expanded): how many entries each pattern brought, or a warning that it brought none;
 * the untracked files; what each `exclude` pattern kept out.
 */
export function matchReport(select: Selector, projectDir: string): Array<{ warning: boolean; text: string }> {
  const label = (pattern: string): string => select.labels.get(pattern) ?? pattern;
  const lines = [...select.counts].map(([pattern, count]) => {
    if (pattern === '') return { warning: true, text: 'No matching files. Path is empty.' };
    if (leavesProject(pattern, projectDir)) return { warning: true, text: `processPath: artifact path is not a subpath of project directory: ${label(pattern)}` };
    return count > 0
      ? { warning: false, text: `${label(pattern)}: found ${count} matching artifact files and directories` }
      : { warning: true, text: `${label(pattern)}: no matching files. Ensure that the artifact path is relative to the working directory (${projectDir})` };
  });
  if (select.untracked) {
    lines.push(select.untrackedCount > 0 ? { warning: false, text: `untracked: found ${select.untrackedCount} files` } : { warning: true, text: 'untracked: no files' });
  }
  for (const [pattern, count] of select.excluded) lines.push({ warning: false, text: `${label(pattern)}: excluded ${count} files` });
  return lines;
}

/**
 * Whether a path leads out of the project directory, as gitlab-runner's archiver decides before
 * it globs: the path itself, or for a glob the directory before its first wildcard, resolved
 * from the project directory (`..`, `../elsewhere`, `/etc/hosts`, `/tmp/*.log`).
 */
function leavesProject(pattern: string, projectDir: string): boolean {
  const wildcard = pattern.search(/[*?[{]/);
  const base = wildcard < 0 ? pattern : pattern.slice(0, Math.max(0, pattern.lastIndexOf('/', wildcard))) || (pattern.startsWith('/') ? '/' : '.');
  const relative = path.posix.relative(projectDir, path.posix.resolve(projectDir, base));
  return relative === '..' || relative.startsWith('../');
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
    if (namesProjectDirectory(raw)) return [''];
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
