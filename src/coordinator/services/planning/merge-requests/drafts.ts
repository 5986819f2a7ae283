import { DRAFT_TITLE_PREFIXES } from '../../../../storage/types-merge-requests.ts';

export { isDraftTitle } from '../../../../storage/types-merge-requests.ts';

/** The title without its draft prefixes (GitLab's draftless_title), for comparing titles. */
export function draftlessTitle(title: string): string {
  let rest = title.replace(/^ +/, '');
  // Each pass removes one prefix; a title holds at most its length of them.
  for (;;) {
    const lowered = rest.toLowerCase();
    const prefix = DRAFT_TITLE_PREFIXES.find((candidate) => lowered.startsWith(candidate));
    if (!prefix) return rest;
    rest = rest.slice(prefix.length).replace(/^ +/, '');
  }
}
