import type { FastifyInstance } from 'fastify';
import type { GroupProjectsQuery, GroupsService } from '../services/namespaces/groups.ts';
import { PAGE_ROUTE, pageRequest, sendPage, sendRefusal, type WebEdge } from './frame.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';
import { MAX_PAGE, pastLastPage, requestedPage } from './paging.ts';
import type { MilestonePages } from './milestone-pages.ts';
import { pager } from './planning-format.ts';

/** How many subgroups, projects or groups one page lists (GitLab's group page pages by 20 too). */
const PER_PAGE = 20;

export interface GroupPagesServices {
  groups: Pick<GroupsService, 'readable' | 'list' | 'subgroups' | 'projects'>;
}

/** A group's milestones (`/groups/:full_path/-/milestones[/:iid]`), which a group milestone's `web_url` names. */
const GROUP_MILESTONES = /^(.+?)\/-\/milestones(?:\/(\d{1,15}))?$/;

const GROUP_PROJECTS: GroupProjectsQuery = {
  orderBy: 'last_activity_at', sort: 'desc', owned: false, starred: false, includeSubgroups: false, withShared: false, withIssuesEnabled: false, withMergeRequestsEnabled: false,
};

/**
 * `/explore` (a redirect to the projects list, as GitLab's), `/explore/groups`
 * (the groups the viewer may see) and `/groups/:full_path` (a group: its subgroups and its own
 * projects the viewer may see), which a group's `web_url` names. A group the viewer may not see
 * answers as one that does not exist.
 */
export function registerGroupPages(app: FastifyInstance, edge: WebEdge, services: GroupPagesServices, milestones: Pick<MilestonePages, 'list' | 'show'>): void {
  app.get('/explore', PAGE_ROUTE, async (request, reply) => reply.redirect(`${request.coordinatorPrefix ?? ''}/explore/projects`, 302));

  app.get('/explore/groups', PAGE_ROUTE, async (request, reply) => {
    const page = await pageRequest(edge, request);
    const number = requestedPage(request.query);
    if (number > MAX_PAGE) return sendPage(reply, 400, pastLastPage(page.frame, number));
    const { prefix } = page.frame;
    const query = { orderBy: 'name', sort: 'asc', statistics: false, owned: false, allAvailable: true } as const;
    const { items, total } = await services.groups.list(page.actor, query, { offset: (number - 1) * PER_PAGE, limit: PER_PAGE });
    const rows = items.map(({ group }) => html`<tr><td><a href="${prefix}/groups/${group.full_path}">${group.full_name}</a><div class="muted">${group.description}</div></td><td>${group.visibility}</td></tr>`);
    const body = html`<h1>Groups</h1>
${items.length === 0 ? html`<p>No groups to show.</p>` : html`<table><thead><tr><th scope="col">Group</th><th scope="col">Visibility</th></tr></thead><tbody>${rows}</tbody></table>`}
${pager(`${prefix}/explore/groups`, {}, number, total, PER_PAGE)}`;
    return sendPage(reply, 200, layout(page.frame, 'Groups', body));
  });

  app.get('/groups/*', PAGE_ROUTE, async (request, reply) => {
    const page = await pageRequest(edge, request);
    const fullPath = (request.params as Record<string, string>)['*']!.replace(/\/+$/, '');
    const milestone = GROUP_MILESTONES.exec(fullPath);
    if (milestone) {
      const owner = { kind: 'group', ref: milestone[1]! } as const;
      return milestone[2] === undefined ? milestones.list(owner, request, reply) : milestones.show(owner, Number(milestone[2]), request, reply);
    }
    const number = requestedPage(request.query);
    if (number > MAX_PAGE) return sendPage(reply, 400, pastLastPage(page.frame, number));
    try {
      const group = await services.groups.readable(fullPath, page.actor);
      const window = { offset: (number - 1) * PER_PAGE, limit: PER_PAGE };
      const subgroups = await services.groups.subgroups(String(group.id), page.actor, { orderBy: 'name', sort: 'asc', statistics: false, owned: false }, window);
      const projects = await services.groups.projects(String(group.id), page.actor, GROUP_PROJECTS, window);
      const { prefix } = page.frame;
      const subgroupRows = subgroups.items.map(({ group: child }) => html`<tr><td><a href="${prefix}/groups/${child.full_path}">${child.name}</a><div class="muted">${child.description}</div></td><td>${child.visibility}</td></tr>`);
      const projectRows = projects.items.map((project) => html`<tr><td><a href="${prefix}/${group.full_path}/${project.path}">${project.name}</a><div class="muted">${project.description}</div></td><td>${project.visibility}</td><td><time datetime="${project.last_activity_at}">${project.last_activity_at.slice(0, 10)}</time></td></tr>`);
      const body = html`<h1>${group.full_name}</h1>
<p class="muted">${group.description}</p>
<p>Visibility: ${group.visibility}</p>
<h2>Subgroups</h2>
${subgroupRows.length === 0 ? html`<p>No subgroups to show.</p>` : html`<table><thead><tr><th scope="col">Subgroup</th><th scope="col">Visibility</th></tr></thead><tbody>${subgroupRows}</tbody></table>`}
<h2>Projects</h2>
${projectRows.length === 0 ? html`<p>No projects to show.</p>` : html`<table><thead><tr><th scope="col">Project</th><th scope="col">Visibility</th><th scope="col">Last activity</th></tr></thead><tbody>${projectRows}</tbody></table>`}
${pager(`${prefix}/groups/${group.full_path}`, {}, number, Math.max(subgroups.total, projects.total), PER_PAGE)}`;
      return sendPage(reply, 200, layout(page.frame, group.full_name, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  });
}
