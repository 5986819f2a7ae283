/** Rows to skip and to answer. */
export interface Page {
  offset: number;
  limit: number;
}

/** One page of a list and the list's length. */
export interface Paged<T> {
  items: T[];
  total: number;
}

/** A page of a list held whole (git answers such lists at once). */
export function pageOfList<T>(items: readonly T[], page: Page): Paged<T> {
  return { items: items.slice(page.offset, page.offset + page.limit), total: items.length };
}
