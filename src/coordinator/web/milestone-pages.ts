import type { FastifyReply, FastifyRequest } from 'fastify';
import { GantryError } from '../../shared/errors.ts';
import type { UserRecord } from '../../storage/types.ts';
import type { IssueView } from '../services/planning/issue-views.ts';
import type { IssuesService } from '../services/planning/issues.ts';
import type { MilestonesService, MilestoneView } from '../services/planning/milestones.ts';
import type { OwnerRef } from '../services/planning/planning-owner.ts';
import type { Paged } from '../services/repository/pages.ts';
import { pageRequest, sendPage, sendRefusal, type WebEdge } from './frame.ts';
import { html, type Markup } from './html.ts';
import { layout } from './layout.ts';
import { pathHref, projectHref } from './pipeline-format.ts';
import { listPage, listState, markdownBlock, pager, PLANNING_PER_PAGE, stateTabs, when } from './planning-format.ts';

export interface MilestonePagesServices {
  milestones: Pick<MilestonesService, 'list'>;
  issues: Pick<IssuesService, 'listProject' | 'listGroup'>;
}

/** A milestone page's issues (GitLab's shows them all on its board; past this the page says how many there are). */
const ISSUES_SHOWN = 100;
const MILESTONE_STATES = ['active', 'closed', 'all'] as const;

/**
 * `/-/milestones` and `/-/milestones/:iid` of a project, and of a group under `/groups/` (what
 * a milestone's `web_url` names), read-only, through the milestones and issues services with
 * the viewer as the actor: whoever may read the project's or group's milestones sees them, and
 * the milestone's issues the viewer may see.
 */
export class MilestonePages {
  constructor(
    private readonly edge: WebEdge,
    private readonly services: MilestonePagesServices,
  ) {}

  async list(owner: OwnerRef, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const state = listState(request, MILESTONE_STATES);
      const number = listPage(request);
      const { items, total } = await this.services.milestones.list(owner, page.actor, { ...(state !== 'all' && { state }), includeParents: false }, { offset: (number - 1) * PLANNING_PER_PAGE, limit: PLANNING_PER_PAGE });
      const home = ownerHref(page.frame.prefix, owner);
      const base = `${home}/-/milestones`;
      const rows = items.map(({ milestone }) => html`<tr><td><a href="${base}/${milestone.iid}">${milestone.title}</a></td><td>${milestone.state}</td><td>${milestone.start_date ?? ''}</td><td>${milestone.due_date ?? ''}</td></tr>`);
      const body = html`<p><a href="${home}">${owner.ref}</a></p>
<h1>Milestones</h1>
${stateTabs(base, [['active', 'Open'], ['closed', 'Closed'], ['all', 'All']], state)}
${items.length === 0 ? html`<p>No milestones to show.</p>` : html`<table><thead><tr><th scope="col">Milestone</th><th scope="col">State</th><th scope="col">Start</th><th scope="col">Due</th></tr></thead><tbody>${rows}</tbody></table>`}
${pager(base, { state }, number, total)}`;
      return sendPage(reply, 200, layout(page.frame, `Milestones · ${owner.ref}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  async show(owner: OwnerRef, iid: number, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const { items } = await this.services.milestones.list(owner, page.actor, { iids: [iid], includeParents: false }, { offset: 0, limit: 1 });
      const view = items[0];
      if (!view) throw new GantryError('GANTRY_E_MILESTONE_RECORD_NOT_FOUND');
      const { milestone } = view;
      const issues = await this.issues(owner, page.actor, view);
      const home = ownerHref(page.frame.prefix, owner);
      const body = html`<p><a href="${home}">${owner.ref}</a> › <a href="${home}/-/milestones">Milestones</a></p>
<h1>${milestone.title}</h1>
<p><span class="state state-${milestone.state}">${milestone.state === 'active' ? 'Open' : 'Closed'}</span> · created ${when(milestone.created_at)}${milestone.start_date !== null && ` · starts ${milestone.start_date}`}${milestone.due_date !== null && ` · due ${milestone.due_date}`}</p>
${markdownBlock(milestone.description, 'No description.')}
${issues && issueSection(page.frame.prefix, issues)}`;
      return sendPage(reply, 200, layout(page.frame, `${milestone.title} · ${owner.ref}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  /** The milestone's issues the viewer may see; a group's need someone signed in (GitLab's group issue lists do too). */
  private async issues(owner: OwnerRef, actor: UserRecord | null, view: MilestoneView): Promise<Paged<IssueView> | null> {
    const query = { milestoneId: view.milestone.id, orderBy: 'created_at', sort: 'desc' } as const;
    const window = { offset: 0, limit: ISSUES_SHOWN };
    if (owner.kind === 'project') return this.services.issues.listProject(owner.ref, actor, query, window);
    return actor === null ? null : this.services.issues.listGroup(owner.ref, actor, query, window);
  }
}

function ownerHref(prefix: string, owner: OwnerRef): string {
  return owner.kind === 'project' ? projectHref(prefix, owner.ref) : `${prefix}/groups/${pathHref(owner.ref)}`;
}

function issueSection(prefix: string, { items, total }: Paged<IssueView>): Markup {
  const opened = items.filter(({ issue }) => issue.state === 'opened');
  const closed = items.filter(({ issue }) => issue.state !== 'opened');
  const list = (views: IssueView[]) => (views.length === 0 ? html`<p class="muted">None.</p>` : html`<ul>${views.map(({ issue, projectPath }) => html`<li><a href="${projectHref(prefix, projectPath)}/-/issues/${issue.iid}">#${issue.iid} ${issue.title}</a></li>`)}</ul>`);
  return html`<h2>Issues (${total})</h2>
<section><h3>Open</h3>${list(opened)}</section>
<section><h3>Closed</h3>${list(closed)}</section>
${total > items.length && html`<p class="muted">The newest ${items.length} of ${total} issues are shown.</p>`}`;
}
