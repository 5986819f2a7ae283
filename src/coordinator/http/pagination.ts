import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalidParam } from '../../shared/errors.ts';
import type { Params } from './params.ts';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

/** `page` from 1 (values below 1 read as 1), `per_page` default 20, at most 100. */
export function pageRequest(params: Params): PageRequest {
  let page = readPositive(params, 'page') ?? 1;
  let perPage = readPositive(params, 'per_page') ?? DEFAULT_PER_PAGE;
  if (page < 1) page = 1;
  if (perPage < 1) perPage = DEFAULT_PER_PAGE;
  if (perPage > MAX_PER_PAGE) perPage = MAX_PER_PAGE;
  return { page, perPage, offset: (page - 1) * perPage };
}

function readPositive(params: Params, name: string): number | undefined {
  const raw = params.string(name);
  if (raw === undefined || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw.trim())) throw invalidParam(name, 'is invalid');
  return Number(raw);
}

export interface PageOutcome {
  /** Total number of items, when known. Without it X-Total and the `last` link are left out. */
  total?: number;
  /** Whether a next page exists; derived from `total` when that is known. */
  hasNext?: boolean;
}

/** Sets X-Total, X-Total-Pages, X-Per-Page, X-Page, X-Next-Page, X-Prev-Page and Link. */
export function setPaginationHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  externalUrl: string,
  page: PageRequest,
  outcome: PageOutcome,
): void {
  const totalPages = outcome.total === undefined ? undefined : Math.max(1, Math.ceil(outcome.total / page.perPage));
  const hasNext = totalPages === undefined ? outcome.hasNext === true : page.page < totalPages;
  const nextPage = hasNext ? page.page + 1 : undefined;
  const prevPage = page.page > 1 ? page.page - 1 : undefined;

  reply.header('X-Per-Page', String(page.perPage));
  reply.header('X-Page', String(page.page));
  reply.header('X-Next-Page', nextPage === undefined ? '' : String(nextPage));
  reply.header('X-Prev-Page', prevPage === undefined ? '' : String(prevPage));
  if (outcome.total !== undefined && totalPages !== undefined) {
    reply.header('X-Total', String(outcome.total));
    reply.header('X-Total-Pages', String(totalPages));
  }

  const link = (target: number, rel: string) => `<${pageUrl(request, externalUrl, page.perPage, target)}>; rel="${rel}"`;
  const links: string[] = [];
  if (prevPage !== undefined) links.push(link(prevPage, 'prev'));
  if (nextPage !== undefined) links.push(link(nextPage, 'next'));
  links.push(link(1, 'first'));
  if (totalPages !== undefined) links.push(link(totalPages, 'last'));
  reply.header('Link', links.join(', '));
}

/**
 * Links point back at the address the client used, as GitLab's do (it builds them from the
 * request URL): a client that reached us through another name than the external URL
 * (an internal address, a test port) can follow them. When the client used the external
 * URL's host, the external URL is kept, with its scheme and any path prefix of a proxy.
 */
function pageUrl(request: FastifyRequest, externalUrl: string, perPage: number, target: number): string {
  const external = new URL(externalUrl);
  const requestPath = new URL(request.url, 'http://x');
  const url = request.host && request.host !== external.host ? new URL(`${request.protocol}://${request.host}`) : external;
  // Keep any path prefix of the external URL (request.url is an absolute path without it).
  const prefix = url === external ? external.pathname.replace(/\/$/, '') : '';
  const link = new URL(prefix + requestPath.pathname + requestPath.search, url);
  link.searchParams.set('page', String(target));
  link.searchParams.set('per_page', String(perPage));
  return link.toString();
}

/** Slices an in-memory list to a page; for sources that cannot paginate in SQL. */
export function slicePage<T>(items: readonly T[], page: PageRequest): T[] {
  return items.slice(page.offset, page.offset + page.perPage);
}
