import { GantryError } from '../../shared/errors.ts';

/**
 * Repository content that git refuses to work with or that no client should be handed: tree
 * entries such as `.git`, `..` or `git~1` (pushed before fsck was on), or a corrupt tree.
 * Reads of it are refused with the reason (not a bare failure), and the repository logs a warning.
 */
export class GitContentError extends GantryError {
  constructor(readonly detail: string) {
    super('GANTRY_E_REPOSITORY_CONTENT_REFUSED', `the repository holds content git refuses to serve: ${detail}`);
    this.name = 'GitContentError';
  }
}

/** What git prints (stderr) when a command fails on the repository's content rather than on us. */
const CONTENT_FAILURES: ReadonlyArray<[RegExp, (match: RegExpExecArray) => string]> = [
  [/invalid path '([^'\n]*)'/, (match) => `invalid path '${match[1]}'`],
  [/too-short tree object/, () => 'a corrupt tree (too short)'],
  [/empty filename in tree entry/, () => 'a tree entry with an empty name'],
  [/malformed mode in tree entry/, () => 'a tree entry with a malformed mode'],
  [/too-short tree file/, () => 'a corrupt tree (too short)'],
  [/unable to parse tree/, () => 'a corrupt tree'],
];

/** The content problem a failed git command reported, or null when it failed for another reason. */
export function contentFailure(stderr: string): string | null {
  for (const [pattern, describe] of CONTENT_FAILURES) {
    const match = pattern.exec(stderr);
    if (match) return describe(match);
  }
  return null;
}

/** Characters HFS+ ignores when comparing names (git's is_hfs_dotgit). */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** Whether a name reads as `.git` on some file system: any case, HFS+ ignorables, NTFS trailing dots/spaces, `git~1`, `.git::$DATA`. */
export function isDotGitName(name: string): boolean {
  const folded = name.replace(HFS_IGNORABLE, '').toLowerCase();
  const ntfs = folded.split(':', 1)[0]!.replace(/[ .]+$/, '');
  return folded === '.git' || ntfs === '.git' || ntfs === 'git~1';
}

/** A tree entry name no checkout may create: empty, `.`, `..`, a separator or NUL inside, or a `.git` look-alike. */
export function isDangerousEntryName(name: string): boolean {
  return name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0') || isDotGitName(name);
}

/** Throws GitContentError for the first path (of entries joined by `/`) with a dangerous segment. */
export function refuseDangerousPaths(paths: Iterable<string>): void {
  for (const path of paths) {
    if (path.split('/').some(isDangerousEntryName)) throw new GitContentError(`a dangerous path ${JSON.stringify(path)}`);
  }
}
