import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DiscussionsService } from '../services/planning/discussions.ts';
import type { IssuesService } from '../services/planning/issues.ts';
import { pageRequest, sendPage, sendRefusal, type WebEdge } from './frame.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';
import { projectHref } from './pipeline-format.ts';
import { discussionList, labelList, listPage, listState, markdownBlock, pager, people, personName, PLANNING_PER_PAGE, stateTabs, when } from './planning-format.ts';

export interface IssuePagesServices {
  issues: Pick<IssuesService, 'listProject' | 'get'>;
  discussions: Pick<DiscussionsService, 'list'>;
}

/** Threads an issue or merge request page shows (GitLab loads them all; past this the page says how many it cut). */
export const THREADS_SHOWN = 200;
const ISSUE_STATES = ['opened', 'closed', 'all'] as const;

/**
 * `/-/issues` (list) and `/-/issues/:iid`, read-only, through the issues and discussions services
 * with the viewer as the actor: an anonymous visitor of a public project sees its issues and
 * notes as GitLab's pages show them (no confidential issue, no internal note: the permission
 * module's rules for nobody signed in).
 */
export class IssuePages {
  constructor(
    private readonly edge: WebEdge,
    private readonly services: IssuePagesServices,
  ) {}

  async list(projectPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const { actor } = page;
      const state = listState(request, ISSUE_STATES);
      const number = listPage(request);
      const { items, total } = await this.services.issues.listProject(projectPath, actor, { ...(state !== 'all' && { state }), orderBy: 'created_at', sort: 'desc' }, { offset: (number - 1) * PLANNING_PER_PAGE, limit: PLANNING_PER_PAGE });
      const project = projectHref(page.frame.prefix, projectPath);
      const base = `${project}/-/issues`;
      const rows = items.map(({ issue, author, labels, assignees }) => html`<tr>
<td><a href="${base}/${issue.iid}">#${issue.iid} ${issue.title}</a>${issue.confidential && html` <span class="muted">confidential</span>`}</td>
<td>${issue.state}</td><td>${personName(author)}</td><td>${labelList(labels)}</td><td>${people(assignees)}</td><td>${when(issue.created_at)}</td></tr>`);
      const body = html`<p><a href="${project}">${projectPath}</a></p>
<h1>Issues</h1>
${stateTabs(base, [['opened', 'Open'], ['closed', 'Closed'], ['all', 'All']], state)}
${items.length === 0 ? html`<p>No issues to show.</p>` : html`<table><thead><tr><th scope="col">Issue</th><th scope="col">State</th><th scope="col">Author</th><th scope="col">Labels</th><th scope="col">Assignees</th><th scope="col">Created</th></tr></thead><tbody>${rows}</tbody></table>`}
${pager(base, { state }, number, total)}`;
      return sendPage(reply, 200, layout(page.frame, `Issues · ${projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  async show(projectPath: string, iid: number, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const { actor } = page;
      const view = await this.services.issues.get(projectPath, actor, iid);
      const threads = await this.services.discussions.list(projectPath, actor, { type: 'Issue', iid }, { offset: 0, limit: THREADS_SHOWN });
      const { issue } = view;
      const project = projectHref(page.frame.prefix, view.projectPath);
      const body = html`<p><a href="${project}">${view.projectPath}</a> › <a href="${project}/-/issues">Issues</a></p>
<h1>${issue.title} <span class="muted">#${issue.iid}</span></h1>
<p><span class="state state-${issue.state}">${issue.state === 'opened' ? 'Open' : 'Closed'}</span>${issue.confidential && ' · confidential'} · opened ${when(issue.created_at)} by ${personName(view.author)}${issue.closed_at !== null && html` · closed ${when(issue.closed_at)}${view.closedBy && ` by ${personName(view.closedBy)}`}`}</p>
<dl class="job-meta">
<dt>Assignees</dt><dd>${people(view.assignees)}</dd>
<dt>Labels</dt><dd>${labelList(view.labels)}</dd>
<dt>Milestone</dt><dd>${view.milestone?.milestone.title ?? 'none'}</dd>
${issue.due_date !== null && html`<dt>Due</dt><dd>${issue.due_date}</dd>`}
</dl>
${markdownBlock(issue.description, 'No description.')}
${discussionList(threads.items, threads.total)}`;
      return sendPage(reply, 200, layout(page.frame, `${issue.title} (#${issue.iid}) · ${view.projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }
}
