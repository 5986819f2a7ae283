import type { FastifyRequest } from 'fastify';
import type { UserRecord } from '../../storage/types.ts';
import type { DiscussionView } from '../services/planning/discussions.ts';
import { html, type Markup } from './html.ts';
import { renderMarkdown } from './markdown.ts';
import { MAX_PAGE, requestedPage } from './paging.ts';

/** Merge requests and issues a list page shows, and the last page it opens (GitLab's lists page by 20 too). */
export const PLANNING_PER_PAGE = 20;

/** `?state=` of a list page: one of `states`, else the first (GitLab opens on "Open"). */
export function listState<T extends string>(request: FastifyRequest, states: readonly T[]): T {
  const value = (request.query as Record<string, unknown>).state;
  return states.find((state) => state === value) ?? states[0]!;
}

/** `?page=` between 1 and MAX_PAGE. */
export function listPage(request: FastifyRequest): number {
  return Math.min(MAX_PAGE, requestedPage(request.query));
}

/** The state tabs of a list page, the current one marked. */
export function stateTabs(base: string, states: ReadonlyArray<readonly [string, string]>, current: string): Markup {
  return html`<nav class="tabs" aria-label="State">${states.map(([value, label]) => html`<a href="${base}?state=${value}"${value === current ? html` aria-current="page"` : null}>${label}</a> `)}</nav>`;
}

/** Previous and next links, keeping the other query parameters. */
export function pager(base: string, query: Record<string, string>, page: number, total: number, perPage = PLANNING_PER_PAGE): Markup {
  const href = (number: number) => `${base}?${new URLSearchParams({ ...query, page: String(number) }).toString()}`;
  return html`<p>${page > 1 && html`<a rel="prev" href="${href(page - 1)}">Previous page</a> `}${page * perPage < total && page < MAX_PAGE && html`<a rel="next" href="${href(page + 1)}">Next page</a>`}</p>`;
}

export function personName(user: UserRecord | null): string {
  return user ? `${user.name} (@${user.username})` : 'a deleted user';
}

export function people(users: readonly UserRecord[]): string {
  return users.length === 0 ? 'none' : users.map(personName).join(', ');
}

export function labelList(titles: readonly string[]): Markup {
  return titles.length === 0 ? html`none` : html`<ul class="labels">${titles.map((title) => html`<li class="label">${title}</li>`)}</ul>`;
}

export function when(iso: string): Markup {
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')}</time>`;
}

/** A description or a note body: Markdown with raw HTML escaped (markdown.ts). */
export function markdownBlock(source: string | null, empty: string): Markup {
  return source === null || source.trim() === '' ? html`<p class="muted">${empty}</p>` : html`<div class="markdown">${renderMarkdown(source)}</div>`;
}

/** The activity: system notes as one line each, people's notes as threads with their replies. */
export function discussionList(discussions: readonly DiscussionView[], total: number): Markup {
  const items = discussions.map((discussion) => {
    const [first, ...replies] = discussion.notes;
    if (!first) return null;
    if (first.note.system) {
      return html`<li class="system-note"><span class="muted">${personName(first.author)}</span> ${markdownBlock(first.note.body, '')} ${when(first.note.created_at)}</li>`;
    }
    const note = (view: (typeof discussion.notes)[number]) => html`<article class="note" id="note_${view.note.id}">
<header><strong>${personName(view.author)}</strong> ${when(view.note.created_at)}${view.note.internal && html` <span class="muted">internal</span>`}${view.note.resolved_at !== null && html` <span class="muted">resolved</span>`}</header>
${markdownBlock(view.note.body, '')}</article>`;
    return html`<li class="thread">${note(first)}${replies.length > 0 && html`<ol class="replies">${replies.map((reply) => html`<li>${note(reply)}</li>`)}</ol>`}</li>`;
  });
  return html`<h2>Activity</h2>
${discussions.length === 0 ? html`<p class="muted">No activity yet.</p>` : html`<ol class="activity">${items}</ol>`}
${total > discussions.length && html`<p class="muted">The first ${discussions.length} of ${total} threads are shown.</p>`}`;
}
