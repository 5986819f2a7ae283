/**
 * `changes` and `exists` over lists of paths, as GitLab's `Rules::Rule::Clause::Changes` and
 * `Exists` do: globs matched by `File.fnmatch` semantics (linear time, src/shared/glob.ts),
 * and GitLab's budgets: past a number of glob comparisons the clause is taken as true.
 */
import { pathGlobMatcher } from '../shared/glob.ts';

/** GitLab `CHANGES_MAX_PATTERN_COMPARISONS`: paths × globs past this match without comparing. */
export const MAX_CHANGES_COMPARISONS = 50_000;
/**
 * Changed paths past this many decide nothing more: at least one glob times this many paths is
 * past the comparison budget (`changes` holds), so a diff is read no further.
 */
export const CHANGED_PATHS_NEEDED = MAX_CHANGES_COMPARISONS + 1;
/** GitLab `Exists::MAX_PATTERN_COMPARISONS`: after this many comparisons a patterned glob matches. */
export const MAX_EXISTS_COMPARISONS = 10_000;

export function anyChangeMatches(globs: readonly string[], paths: readonly string[]): boolean {
  if (paths.length === 0) return false;
  const unique = [...new Set(globs)];
  if (unique.length === 0) return false;
  if (unique.length * paths.length > MAX_CHANGES_COMPARISONS) return true;
  const matchers = unique.map(pathGlobMatcher);
  return paths.some((path) => matchers.some((matches) => matches(path)));
}

/** The repository's files, indexed once per compile for `exists`. */
export class FileIndex {
  private readonly present: Set<string>;

  constructor(private readonly files: readonly string[]) {
    this.present = new Set(files);
  }

  anyExists(globs: readonly string[]): boolean {
    const exact: string[] = [];
    const extensions: string[] = [];
    const patterns: string[] = [];
    for (const glob of globs.map((text) => text.replace(/^\.?\//, ''))) {
      const extension = nestedExtension(glob);
      if (isExactGlob(glob)) exact.push(glob);
      else if (extension !== null) extensions.push(extension);
      else patterns.push(glob);
    }
    if (exact.some((path) => this.present.has(path))) return true;
    if (extensions.length > 0 && this.files.some((path) => extensions.some((extension) => path.endsWith(extension)))) return true;
    let comparisons = 0;
    return patterns.some((glob) => {
      const matches = pathGlobMatcher(glob);
      return this.files.some((path) => ++comparisons > MAX_EXISTS_COMPARISONS || matches(path));
    });
  }
}

/** No wildcard of fnmatch's: the glob names one path. */
export function isExactGlob(glob: string): boolean {
  return !/[*?[{]/.test(glob);
}

/** `**\/*.js` and the like: the extension every matching path ends with; null for other globs. */
function nestedExtension(glob: string): string | null {
  if (!glob.startsWith('**/*')) return null;
  const rest = glob.slice('**/*'.length);
  return rest.startsWith('.') && !rest.includes('/') && isExactGlob(rest) && !rest.includes('\\') ? rest : null;
}
