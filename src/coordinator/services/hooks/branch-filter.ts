import { regexBudget } from '../../../shared/regex-budget.ts';
import type { BranchFilterStrategy, HookRecord } from '../../../storage/types-hooks.ts';

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

/**
 * Why a filter is refused (GitLab's validators: a wildcard filter must read as a branch name, a
 * regex filter must be RE2 syntax), or undefined. A regex filter is compiled in the regex
 * thread, and refused too when over its budget (a program of more than 1,000 instructions,
 * or a second of compiling).
 */
export async function validBranchFilter(strategy: BranchFilterStrategy, filter: string | null): Promise<string | undefined> {
  if (strategy === 'all_branches' || filter === null || filter === '') return undefined;
  if (strategy === 'wildcard') return validWildcardFilter(filter) ? undefined : 'not a valid branch name';
  if (filter.length > BRANCH_FILTER_MAX_LENGTH) return `longer than ${String(BRANCH_FILTER_MAX_LENGTH)} characters`;
  const checked = await regexBudget.check(filter);
  return checked === 'valid' ? undefined : checked === 'invalid' ? 'not valid RE2 syntax' : 'over the regular expression budget';
}

/**
 * Whether a push to `branch` reaches a hook with this filter when the push is recorded (a blank
 * filter: every branch). A regex filter is not matched in the push's request: its deliveries
 * are queued, and `regexBranchSelected` drops those its filter does not select when sending.
 */
export function branchSelected(strategy: BranchFilterStrategy, filter: string | null, branch: string): boolean {
  if (strategy !== 'wildcard' || filter === null || filter === '') return true;
  return wildcardMatches(filter, branch);
}

/**
 * For a push's delivery about to be sent: whether the hook's regex filter (as it is now) selects
 * the branch, matched anywhere in the name as GitLab does, in the regex thread. True for other
 * strategies (selected when the push was recorded); false for a filter RE2 refuses or one over
 * the budget, as GitLab selects nothing with a filter it cannot compile.
 */
export async function regexBranchSelected(hook: Pick<HookRecord, 'branch_filter_strategy' | 'push_events_branch_filter'>, branch: string): Promise<boolean> {
  const filter = hook.push_events_branch_filter;
  if (hook.branch_filter_strategy !== 'regex' || filter === null || filter === '') return true;
  return regexBudget.matches(filter, branch);
}
