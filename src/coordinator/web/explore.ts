import type { FastifyInstance } from 'fastify';
import type { ProjectListing } from '../services/namespaces/projects-listing.ts';
import { PAGE_ROUTE, pageRequest, sendPage, sendRefusal, type WebEdge } from './frame.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';
import { MAX_PAGE, pastLastPage, requestedPage } from './paging.ts';

const PER_PAGE = 20;

/** `/explore/projects`: the projects the viewer may see (public ones for anonymous visitors), newest activity first. */
export function registerExplore(app: FastifyInstance, edge: WebEdge, listing: Pick<ProjectListing, 'list'>): void {
  app.get('/', PAGE_ROUTE, async (request, reply) => reply.redirect(`${request.coordinatorPrefix ?? ''}/explore/projects`, 302));

  app.get('/explore/projects', PAGE_ROUTE, async (request, reply) => {
    const page = await pageRequest(edge, request);
    const number = requestedPage(request.query);
    if (number > MAX_PAGE) return sendPage(reply, 400, pastLastPage(page.frame, number));
    try {
      const query = { orderBy: 'last_activity_at', sort: 'desc', simple: false, owned: false, membership: false, starred: false, statistics: false, withCustomAttributes: false } as const;
      const { items, total } = await listing.list(page.actor, query, { offset: (number - 1) * PER_PAGE, limit: PER_PAGE });
      const { prefix } = page.frame;
      const rows = items.map(({ project, namespace }) => {
        const fullPath = `${namespace.full_path}/${project.path}`;
        return html`<tr><td><a href="${prefix}/${fullPath}">${namespace.full_name} / ${project.name}</a><div class="muted">${project.description}</div></td><td>${project.visibility}</td><td><time datetime="${project.last_activity_at}">${project.last_activity_at.slice(0, 10)}</time></td></tr>`;
      });
      const next = number * PER_PAGE < total ? html`<a rel="next" href="${prefix}/explore/projects?page=${number + 1}">Next page</a>` : null;
      const previous = number > 1 ? html`<a rel="prev" href="${prefix}/explore/projects?page=${number - 1}">Previous page</a> ` : null;
      const body = html`<h1>Projects</h1>
${items.length === 0 ? html`<p>No projects to show.</p>` : html`<table><thead><tr><th scope="col">Project</th><th scope="col">Visibility</th><th scope="col">Last activity</th></tr></thead><tbody>${rows}</tbody></table>`}
<p>${previous}${next}</p>`;
      return sendPage(reply, 200, layout(page.frame, 'Projects', body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  });
}
