import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProjectListing } from '../services/namespaces/projects-listing.ts';
import { PAGE_ROUTE, pageRequest, sendPage, sendRefusal, type WebEdge } from './frame.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';
import { MAX_PAGE, pastLastPage, requestedPage } from './paging.ts';
import { pager } from './planning-format.ts';

const PER_PAGE = 20;

/**
 * `/explore/projects`: the projects the viewer may see (public ones for anonymous visitors),
 * newest activity first; `/dashboard/projects`: the signed-in viewer's own (those they are a
 * member of, GitLab's "Your projects"), where `/` leads them as GitLab's root does. An anonymous
 * visitor opening the dashboard is asked to sign in.
 */
export function registerExplore(app: FastifyInstance, edge: WebEdge, listing: Pick<ProjectListing, 'list'>): void {
  app.get('/', PAGE_ROUTE, async (request, reply) => {
    const page = await pageRequest(edge, request);
    return reply.redirect(`${page.frame.prefix}${page.actor ? '/dashboard/projects' : '/explore/projects'}`, 302);
  });
  app.get('/dashboard', PAGE_ROUTE, async (request, reply) => reply.redirect(`${request.coordinatorPrefix ?? ''}/dashboard/projects`, 302));
  app.get('/explore/projects', PAGE_ROUTE, async (request, reply) => projectList(edge, listing, 'explore', request, reply));
  app.get('/dashboard/projects', PAGE_ROUTE, async (request, reply) => projectList(edge, listing, 'dashboard', request, reply));
}

async function projectList(edge: WebEdge, listing: Pick<ProjectListing, 'list'>, kind: 'explore' | 'dashboard', request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const page = await pageRequest(edge, request);
  const { prefix } = page.frame;
  if (kind === 'dashboard' && page.actor === null) return reply.redirect(`${prefix}/users/sign_in?redirect_to=${encodeURIComponent(request.url)}`, 302);
  const number = requestedPage(request.query);
  if (number > MAX_PAGE) return sendPage(reply, 400, pastLastPage(page.frame, number));
  try {
    const query = { orderBy: 'last_activity_at', sort: 'desc', simple: false, owned: false, membership: kind === 'dashboard', starred: false, statistics: false, withCustomAttributes: false } as const;
    const { items, total } = await listing.list(page.actor, query, { offset: (number - 1) * PER_PAGE, limit: PER_PAGE });
    const rows = items.map(({ project, namespace }) => {
      const fullPath = `${namespace.full_path}/${project.path}`;
      return html`<tr><td><a href="${prefix}/${fullPath}">${namespace.full_name} / ${project.name}</a><div class="muted">${project.description}</div></td><td>${project.visibility}</td><td><time datetime="${project.last_activity_at}">${project.last_activity_at.slice(0, 10)}</time></td></tr>`;
    });
    const title = kind === 'dashboard' ? 'Your projects' : 'Projects';
    const body = html`<h1>${title}</h1>
${kind === 'dashboard' ? html`<p><a href="${prefix}/explore/projects">Explore all projects</a></p>` : null}
${items.length === 0 ? html`<p>No projects to show.</p>` : html`<table><thead><tr><th scope="col">Project</th><th scope="col">Visibility</th><th scope="col">Last activity</th></tr></thead><tbody>${rows}</tbody></table>`}
${pager(`${prefix}/${kind}/projects`, {}, number, total, PER_PAGE)}`;
    return sendPage(reply, 200, layout(page.frame, title, body));
  } catch (error) {
    return sendRefusal(reply, page, error, request.url);
  }
}
