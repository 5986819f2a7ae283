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

/**
 * A page of a list read one item at a time, counting the rest without keeping it: the
 * iteration runs to the end (the total needs it). `close` runs however the reading ends.
 */
export async function pageOfStream<T>(items: AsyncIterable<T> & { close(): void }, page: Page): Promise<Paged<T>> {
  const kept: T[] = [];
  let total = 0;
  try {
    for await (const item of items) {
      if (total >= page.offset && kept.length < page.limit) kept.push(item);
      total += 1;
    }
  } finally {
    items.close();
  }
  return { items: kept, total };
}
