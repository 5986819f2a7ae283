import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '#deps/typebox';
import { Param } from './gitlab-params.ts';
import { coordinatorUrl } from './mount-path.ts';
import { invalidParam } from '../../shared/errors.ts';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/**
 * The farthest row a page may start at. A list never holds this many items, so a page that
 * starts later is simply past the end; capping the offset keeps it a small integer for SQL
 * (SQLite refuses offsets past 2^63, JavaScript loses precision past 2^53) and for git's
 * `--skip`, which is a C int.
 */
export const MAX_OFFSET = 2 ** 31 - 1;

export interface PageRequest {
  /** The page asked for, exactly (headers echo it; it may exceed Number.MAX_SAFE_INTEGER). */
  page: bigint;
  perPage: number;
  /** Rows to skip, at most MAX_OFFSET: a later page is empty, as past the end of any list. */
  offset: number;
}

/**
 * `page` and `per_page` of a list route's schema. Declared as digit strings: a page past
 * 2^53 must still read exactly (it is echoed in X-Page), which a JSON number cannot carry.
 */
export const PAGINATION = {
  page: Type.Optional(Param.string({ description: 'Page number, from 1 (integer)' })),
  per_page: Type.Optional(Param.string({ description: `Items per page, 1 to ${MAX_PER_PAGE} (integer; default ${DEFAULT_PER_PAGE})` })),
};

/**
 * The page asked for by a route's validated `page`/`per_page` (see PAGINATION): `page` from 1
 * (values below 1 read as 1), `per_page` default 20, at most 100; non-numbers are 400.
 */
export function pageOf(query: { page?: string; per_page?: string }): PageRequest {
  return toPage(readDigits('page', query.page), readDigits('per_page', query.per_page));
}

function toPage(requestedPage: bigint | undefined, requestedPerPage: bigint | undefined): PageRequest {
  let page = requestedPage ?? 1n;
  let perPage = requestedPerPage ?? BigInt(DEFAULT_PER_PAGE);
  if (page < 1n) page = 1n;
  if (perPage < 1n) perPage = BigInt(DEFAULT_PER_PAGE);
  if (perPage > BigInt(MAX_PER_PAGE)) perPage = BigInt(MAX_PER_PAGE);
  const offset = (page - 1n) * perPage;
  return { page, perPage: Number(perPage), offset: offset > BigInt(MAX_OFFSET) ? MAX_OFFSET : Number(offset) };
}

function readDigits(name: string, raw: string | undefined): bigint | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!/^[-+]?\d+$/.test(raw.trim())) throw invalidParam(name, 'is invalid');
  return BigInt(raw.trim());
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
  const totalPages = outcome.total === undefined ? undefined : BigInt(Math.max(1, Math.ceil(outcome.total / page.perPage)));
  const hasNext = totalPages === undefined ? outcome.hasNext === true : page.page < totalPages;
  const nextPage = hasNext ? page.page + 1n : undefined;
  const prevPage = page.page > 1n ? page.page - 1n : undefined;

  reply.header('X-Per-Page', String(page.perPage));
  reply.header('X-Page', String(page.page));
  reply.header('X-Next-Page', nextPage === undefined ? '' : String(nextPage));
  reply.header('X-Prev-Page', prevPage === undefined ? '' : String(prevPage));
  if (outcome.total !== undefined && totalPages !== undefined) {
    reply.header('X-Total', String(outcome.total));
    reply.header('X-Total-Pages', String(totalPages));
  }

  const link = (target: bigint, rel: string) => `<${pageUrl(request, externalUrl, page.perPage, target)}>; rel="${rel}"`;
  const links: string[] = [];
  if (prevPage !== undefined) links.push(link(prevPage, 'prev'));
  if (nextPage !== undefined) links.push(link(nextPage, 'next'));
  links.push(link(1n, 'first'));
  if (totalPages !== undefined) links.push(link(totalPages, 'last'));
  reply.header('Link', links.join(', '));
}

/**
 * Links point back at the address the client used, as GitLab's do (it builds them from the
 * request URL): a client that reached us through another name than the external URL
 * (an internal address, a test port) can follow them. When the client used the external
 * URL's host, the external URL is kept, with its scheme and any path prefix of a proxy.
 */
function pageUrl(request: FastifyRequest, externalUrl: string, perPage: number, target: bigint): string {
  const external = new URL(externalUrl);
  const viaExternal = !request.host || request.host === external.host;
  // Through the external URL's host: its scheme and path prefix, then our own path. Any
  // other address: exactly the path the client used (a host's mount prefix included).
  const base = viaExternal ? external : new URL(`${request.protocol}://${request.host}`);
  const requestPath = new URL(viaExternal ? coordinatorUrl(request) : request.url, 'http://x');
  const prefix = viaExternal ? external.pathname.replace(/\/$/, '') : '';
  const link = new URL(prefix + requestPath.pathname + requestPath.search, base);
  link.searchParams.set('page', String(target));
  link.searchParams.set('per_page', String(perPage));
  return link.toString();
}

/** Slices an in-memory list to a page; for sources that cannot paginate in SQL. */
export function slicePage<T>(items: readonly T[], page: PageRequest): T[] {
  return items.slice(page.offset, page.offset + page.perPage);
}
