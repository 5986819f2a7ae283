import type { BranchFilterStrategy } from '../../../storage/types-hooks.ts';

/** The longest filter kept (GitLab validates branch filters up to a ref name's length). */
export const BRANCH_FILTER_MAX_LENGTH = 4000;

/**
 * Whether a `push_events_branch_filter` is one GitLab's wildcard validator accepts: each
 * comma-free pattern with `*` in place of any characters must read as a branch name (no
 * spaces, `..`, control characters, `~^:?[\`, nor a leading or trailing `/` or `.`).
 */
export function validWildcardFilter(filter: string): boolean {
  if (filter.length > BRANCH_FILTER_MAX_LENGTH) return false;
  const name = filter.replaceAll('*', 'x');
  if (name === '' || name.includes('..') || name.includes('@{') || name.includes('//')) return false;
  if (/[\s~^:?[\\\x00-\x1f\x7f]/.test(name)) return false;
  return !/^[/.]|[/.]$|\.lock$/.test(name);
}

/**
 * GitLab's RefMatcher for wildcard filters: a filter without `*` matches that branch only; `*`
 * matches any run of characters, slashes included. Matched without a regular expression (the
 * filter is user input): the classic linear-backtrack glob walk.
 */
export function wildcardMatches(filter: string, branch: string): boolean {
  if (!filter.includes('*')) return filter === branch;
  let p = 0;
  let b = 0;
  let star = -1;
  let resume = 0;
  while (b < branch.length) {
    if (p < filter.length && filter[p] !== '*' && filter[p] === branch[b]) {
      p += 1;
      b += 1;
    } else if (p < filter.length && filter[p] === '*') {
      star = p;
      resume = b;
      p += 1;
    } else if (star >= 0) {
      p = star + 1;
      resume += 1;
      b = resume;
    } else {
      return false;
    }
  }
  while (p < filter.length && filter[p] === '*') p += 1;
  return p === filter.length;
}

/** Whether a push to `branch` reaches a hook with this filter (a blank filter: every branch). */
export function branchSelected(strategy: BranchFilterStrategy, filter: string | null, branch: string): boolean {
  if (strategy === 'all_branches' || filter === null || filter === '') return true;
  return wildcardMatches(filter, branch);
}
