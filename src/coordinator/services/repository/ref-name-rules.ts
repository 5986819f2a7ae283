/**
 * Which names a new or updated branch or tag may have, wherever one is written (branches,
 * tags, releases and commits APIs, git pushes): GitLab's Gitlab::GitRefValidator with the
 * refusals of its push checks (Gitlab::Checks::BranchCheck, TagCheck). A name that passes is
 * also one git accepts under refs/heads/ or refs/tags/.
 */

/**
 * Why a name is refused: against the ref-name rules; a full ref name where a tag's short name
 * belongs (`refs/tags/v1`, GitLab's "prohibited pattern"); or it starts with a full commit id.
 */
export type RefNameProblem = 'invalid' | 'prohibited' | 'sha-like';

/**
 * Prefixes refused in a short name because git would read the name as another ref:
 * `refs/heads/main` is not a branch `main`, and `heads/main` resolves to `refs/heads/main`
 * before `refs/heads/heads/main` (git's rev-parse order), so such a branch is shadowed. GitLab's
 * validator refuses the first two only; `heads/` and `remotes/` are refused here too.
 */
const EXPANDED_PREFIXES = ['refs/heads/', 'refs/remotes/', 'heads/', 'remotes/'] as const;
/** A full SHA-1 (or the start of a SHA-256) at the start of the name: it would read as a commit id. */
const STARTS_WITH_SHA = /^[0-9a-fA-F]{40}/;
/** Control characters, DEL, space and git's special characters. */
const FORBIDDEN_CHARACTERS = /[\u0000-\u001f\u007f ~^:?*[\\]/;

/**
 * `Gitlab::GitRefValidator.validate`: not empty, not `HEAD` (nor `@`), not starting with `-`,
 * `refs/heads/`, `refs/remotes/`, `heads/` or `remotes/`, and valid as `refs/heads/<name>` by git check-ref-format
 * (no `..`, `//`, `@{`, special characters, component starting with `.` or ending in `.lock`,
 * nor a name ending in `/` or `.`).
 */
export function isValidShortRefName(name: string): boolean {
  if (name === '' || name === 'HEAD' || name === '@') return false;
  if (name.startsWith('-') || name.startsWith('/') || EXPANDED_PREFIXES.some((prefix) => name.startsWith(prefix))) return false;
  if (name.endsWith('/') || name.endsWith('.') || FORBIDDEN_CHARACTERS.test(name)) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  return name.split('/').every((component) => !component.startsWith('.') && !component.endsWith('.lock'));
}

/** A branch name GitLab refuses to create or push to, and why; null when it is fine. */
export function branchNameProblem(name: string): RefNameProblem | null {
  if (STARTS_WITH_SHA.test(name)) return 'sha-like';
  return isValidShortRefName(name) ? null : 'invalid';
}

/** A tag name GitLab refuses to create or push, and why; null when it is fine. */
export function tagNameProblem(name: string): RefNameProblem | null {
  if (!isValidShortRefName(name)) return 'invalid';
  if (name.startsWith('refs/tags/')) return 'prohibited';
  return STARTS_WITH_SHA.test(name) ? 'sha-like' : null;
}
