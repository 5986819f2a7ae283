import type { FastifyReply, FastifyRequest } from 'fastify';
import { GantryError, isGantryError } from '../../shared/errors.ts';
import type { UserRecord } from '../../storage/types.ts';
import type { UsersService } from '../services/accounts/users.ts';
import type { GroupsService } from '../services/namespaces/groups.ts';
import type { ProjectListing, ProjectListQuery } from '../services/namespaces/projects-listing.ts';
import { pageRequest, sendPage, sendRefusal, type WebEdge } from './frame.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';
import { MAX_PAGE, pastLastPage, requestedPage } from './paging.ts';
import { pager } from './planning-format.ts';

/** Personal projects one page lists. */
const PER_PAGE = 20;

export interface UserPagesServices {
  users: Pick<UsersService, 'readableByIdOrUsername'>;
  groups: Pick<GroupsService, 'readable'>;
  projectListing: Pick<ProjectListing, 'listForUser'>;
}

const PERSONAL_PROJECTS: ProjectListQuery = {
  orderBy: 'last_activity_at', sort: 'desc', simple: false, owned: false, membership: false, starred: false, statistics: false, withCustomAttributes: false,
};

/**
 * `/:namespace`, one path segment: a user's profile (what a user's `web_url` names: name,
 * username, bio, and the personal projects the viewer may see), or a top-level group, led to
 * its page under `/groups/`. A blocked user's profile says so and shows nothing else, as
 * GitLab's does; a name that is neither answers as a missing page.
 */
export class UserPages {
  constructor(
    private readonly edge: WebEdge,
    private readonly services: UserPagesServices,
  ) {}

  async show(name: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    const { prefix } = page.frame;
    try {
      const user = await this.user(name, page.actor);
      if (user === null) {
        // A number is no namespace's path (the group lookup would read it as an id).
        if (/^\d+$/.test(name)) throw new GantryError('GANTRY_E_GROUP_NOT_FOUND');
        const group = await this.services.groups.readable(name, page.actor);
        return reply.redirect(`${prefix}/groups/${group.full_path}`, 302);
      }
      const number = requestedPage(request.query);
      if (number > MAX_PAGE) return sendPage(reply, 400, pastLastPage(page.frame, number));
      const heading = html`<h1>${user.name}</h1>
<p class="muted">@${user.username}</p>`;
      if (user.state !== 'active' && !page.actor?.is_admin) {
        return sendPage(reply, 200, layout(page.frame, user.name, html`${heading}<p>This user is blocked.</p>`));
      }
      const projects = await this.services.projectListing.listForUser(String(user.id), page.actor, PERSONAL_PROJECTS, { offset: (number - 1) * PER_PAGE, limit: PER_PAGE });
      const rows = projects.items.map(({ project, namespace }) => html`<tr><td><a href="${prefix}/${namespace.full_path}/${project.path}">${project.name}</a><div class="muted">${project.description}</div></td><td>${project.visibility}</td><td><time datetime="${project.last_activity_at}">${project.last_activity_at.slice(0, 10)}</time></td></tr>`);
      const details = [user.bio, user.location, user.website_url].filter((detail) => detail !== '');
      const body = html`${heading}
${details.map((detail) => html`<p>${detail}</p>`)}
<p class="muted">Member since <time datetime="${user.created_at}">${user.created_at.slice(0, 10)}</time></p>
<h2>Personal projects</h2>
${rows.length === 0 ? html`<p>No projects to show.</p>` : html`<table><thead><tr><th scope="col">Project</th><th scope="col">Visibility</th><th scope="col">Last activity</th></tr></thead><tbody>${rows}</tbody></table>`}
${pager(`${prefix}/${user.username}`, {}, number, projects.total, PER_PAGE)}`;
      return sendPage(reply, 200, layout(page.frame, user.name, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  /** The user of that username (not an id: `/1` is nobody's page), or null when none has it. */
  private async user(name: string, actor: UserRecord | null): Promise<UserRecord | null> {
    if (/^\d+$/.test(name)) return null;
    try {
      return await this.services.users.readableByIdOrUsername(actor, name);
    } catch (error) {
      if (isGantryError(error) && error.code === 'GANTRY_E_USER_NOT_FOUND') return null;
      throw error;
    }
  }
}
