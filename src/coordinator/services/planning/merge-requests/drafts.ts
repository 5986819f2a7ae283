/**
 * GitLab's draft rule (MergeRequest::DRAFT_REGEX): a title starting with `Draft:`, `[Draft]` or
 * `(Draft)`, in any case, marks the request a draft. The merge request views and the system
 * notes read it the same way.
 */
const DRAFT_PREFIX = /^\s*(\[draft\]|\(draft\)|draft:)\s*/i;

export function isDraftTitle(title: string): boolean {
  return DRAFT_PREFIX.test(title);
}

/** The title without its draft prefixes (GitLab's draftless_title), for comparing titles. */
export function draftlessTitle(title: string): string {
  let rest = title;
  // Each pass removes one prefix; a title holds at most its length of them.
  while (DRAFT_PREFIX.test(rest)) rest = rest.replace(DRAFT_PREFIX, '');
  return rest;
}
