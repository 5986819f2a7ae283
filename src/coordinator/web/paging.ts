import { errorPage, type PageFrame } from './layout.ts';
import type { Markup } from './html.ts';

/** Pages past this answer 400: offset pagination of a large table is work the visitor controls. */
export const MAX_PAGE = 500;

/** A list page's `?page=`: 1 unless it is a number of up to four digits (one past MAX_PAGE is the caller's to refuse). */
export function requestedPage(query: unknown): number {
  const value = (query as Record<string, unknown> | undefined)?.page;
  return typeof value === 'string' && /^\d{1,4}$/.test(value) ? Math.max(1, Number(value)) : 1;
}

/** What a list answers (400) for a page past MAX_PAGE. */
export function pastLastPage(frame: PageFrame, page: number): Markup {
  return errorPage(frame, 400, `Page ${page} is past the last page shown (${MAX_PAGE}).`);
}
