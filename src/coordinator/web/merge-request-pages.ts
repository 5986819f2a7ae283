import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MergeStatus } from '../../storage/types-merge-requests.ts';
import type { MergeRequestPipelinesView } from '../services/ci/pipelines/merge-request-pipeline-views.ts';
import type { MergeRequestDiffs } from '../services/planning/merge-requests/changes.ts';
import type { MergeRequestsService } from '../services/planning/merge-requests/service.ts';
import { DIFF_MAX_FILES, DIFF_MAX_LINES } from '../../storage/git/diff-limits.ts';
import { fileDiff } from './diff-view.ts';
import { pageRequest, sendPage, sendRefusal, type PageRequest, type WebEdge } from './frame.ts';
import { html, type Markup } from './html.ts';
import { THREADS_SHOWN, type IssuePagesServices } from './issue-pages.ts';
import { layout } from './layout.ts';
import { formatDuration, pathHref, projectHref, statusLabel } from './pipeline-format.ts';
import { discussionList, labelList, listPage, listState, markdownBlock, pager, people, personName, PLANNING_PER_PAGE, stateTabs, when } from './planning-format.ts';

export interface MergeRequestPagesServices {
  mergeRequests: Pick<MergeRequestsService, 'listProject' | 'get'>;
  mergeRequestDiffs: Pick<MergeRequestDiffs, 'diffsWindow'>;
  mergeRequestPipelinesView: Pick<MergeRequestPipelinesView, 'list'>;
  discussions: IssuePagesServices['discussions'];
}

const STATES = ['opened', 'merged', 'closed', 'all'] as const;
/** Files of the changes tab a page shows (each already cut by git's diff limits); `?page=` moves on. */
export const DIFF_FILES_PER_PAGE = 20;
const PIPELINES_SHOWN = 50;
const MERGE_STATUS_WORDS: Record<MergeStatus, string> = {
  unchecked: 'not checked yet',
  checking: 'being checked',
  can_be_merged: 'can be merged',
  cannot_be_merged: 'has conflicts',
  cannot_be_merged_recheck: 'has conflicts (checking again)',
  cannot_be_merged_rechecking: 'has conflicts (checking again)',
};

/** `/-/merge_requests` (list) and `/-/merge_requests/:iid` with its `pipelines` and `diffs` tabs, read-only. */
export class MergeRequestPages {
  constructor(
    private readonly edge: WebEdge,
    private readonly services: MergeRequestPagesServices,
  ) {}

  async list(projectPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const state = listState(request, STATES);
      const number = listPage(request);
      const { items, total } = await this.services.mergeRequests.listProject(projectPath, page.actor, { ...(state !== 'all' && { state }), orderBy: 'created_at', sort: 'desc' }, { offset: (number - 1) * PLANNING_PER_PAGE, limit: PLANNING_PER_PAGE });
      const project = projectHref(page.frame.prefix, projectPath);
      const base = `${project}/-/merge_requests`;
      const rows = items.map(({ record, author, labels }) => html`<tr>
<td><a href="${base}/${record.iid}">!${record.iid} ${record.title}</a></td>
<td>${record.state}</td><td><span class="sha">${record.source_branch}</span> → <span class="sha">${record.target_branch}</span></td>
<td>${personName(author)}</td><td>${labelList(labels.map((label) => label.title))}</td><td>${when(record.created_at)}</td></tr>`);
      const body = html`<p><a href="${project}">${projectPath}</a></p>
<h1>Merge requests</h1>
${stateTabs(base, [['opened', 'Open'], ['merged', 'Merged'], ['closed', 'Closed'], ['all', 'All']], state)}
${items.length === 0 ? html`<p>No merge requests to show.</p>` : html`<table><thead><tr><th scope="col">Merge request</th><th scope="col">State</th><th scope="col">Branches</th><th scope="col">Author</th><th scope="col">Labels</th><th scope="col">Created</th></tr></thead><tbody>${rows}</tbody></table>`}
${pager(base, { state }, number, total)}`;
      return sendPage(reply, 200, layout(page.frame, `Merge requests · ${projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  async show(projectPath: string, iid: number, tab: 'overview' | 'pipelines' | 'diffs', request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const { view, changesCount } = await this.services.mergeRequests.get(projectPath, page.actor, iid);
      const { record } = view;
      const project = projectHref(page.frame.prefix, view.projectPath);
      const base = `${project}/-/merge_requests/${record.iid}`;
      const section = tab === 'pipelines' ? await this.pipelines(projectPath, iid, page) : tab === 'diffs' ? await this.changes(projectPath, iid, base, page, request) : await this.activity(projectPath, iid, page);
      const tabs = ([['overview', 'Overview', base], ['pipelines', 'Pipelines', `${base}/pipelines`], ['diffs', `Changes (${changesCount ?? 0})`, `${base}/diffs`]] as const)
        .map(([name, label, href]) => html`<a href="${href}"${name === tab ? html` aria-current="page"` : null}>${label}</a> `);
      const source = view.sourceProjectPath !== null && view.sourceProjectPath !== view.projectPath ? `${view.sourceProjectPath}:` : '';
      const body = html`<p><a href="${project}">${view.projectPath}</a> › <a href="${project}/-/merge_requests">Merge requests</a></p>
<h1>${record.title} <span class="muted">!${record.iid}</span></h1>
<p><span class="state state-${record.state}">${record.state}</span> · opened ${when(record.created_at)} by ${personName(view.author)}${record.merged_at !== null && html` · merged ${when(record.merged_at)}${view.mergedBy && ` by ${personName(view.mergedBy)}`}`}${record.closed_at !== null && record.state === 'closed' && html` · closed ${when(record.closed_at)}`}</p>
<dl class="job-meta">
<dt>Branches</dt><dd>merge <a class="sha" href="${project}/-/tree/${pathHref(record.source_branch)}">${source}${record.source_branch}</a> into <a class="sha" href="${project}/-/tree/${pathHref(record.target_branch)}">${record.target_branch}</a></dd>
<dt>Merge status</dt><dd>${record.state === 'opened' ? MERGE_STATUS_WORDS[record.merge_status] : record.state}${record.merge_error !== null && html` <span class="muted">(${record.merge_error})</span>`}</dd>
<dt>Assignees</dt><dd>${people(view.assignees)}</dd>
<dt>Reviewers</dt><dd>${people(view.reviewers)}</dd>
<dt>Labels</dt><dd>${labelList(view.labels.map((label) => label.title))}</dd>
<dt>Milestone</dt><dd>${view.milestone?.milestone.title ?? 'none'}</dd>
</dl>
${markdownBlock(record.description, 'No description.')}
<nav class="tabs" aria-label="Merge request">${tabs}</nav>
${section}`;
      return sendPage(reply, 200, layout(page.frame, `${record.title} (!${record.iid}) · ${view.projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  /** The threads (people's notes and the system's) the viewer may read, anonymous visitors of a public project too. */
  private async activity(projectPath: string, iid: number, page: PageRequest): Promise<Markup> {
    const threads = await this.services.discussions.list(projectPath, page.actor, { type: 'MergeRequest', iid }, { offset: 0, limit: THREADS_SHOWN });
    return discussionList(threads.items, threads.total);
  }

  private async pipelines(projectPath: string, iid: number, page: PageRequest): Promise<Markup> {
    const { items, total } = await this.services.mergeRequestPipelinesView.list(projectPath, page.actor, iid, { offset: 0, limit: PIPELINES_SHOWN });
    const rows = items.map(({ pipeline, target }) => {
      const project = projectHref(page.frame.prefix, target.fullPath);
      return html`<tr><td>${statusLabel(pipeline.status)}</td><td><a href="${project}/-/pipelines/${pipeline.id}">#${pipeline.id}</a></td><td>${pipeline.ref}</td>
<td><a class="sha" href="${project}/-/commit/${pipeline.sha}">${pipeline.sha.slice(0, 8)}</a></td><td>${pipeline.duration === null ? '' : formatDuration(pipeline.duration)}</td><td>${when(pipeline.created_at)}</td></tr>`;
    });
    return html`<h2>Pipelines</h2>
${items.length === 0 ? html`<p>No pipelines to show.</p>` : html`<table><thead><tr><th scope="col">Status</th><th scope="col">Pipeline</th><th scope="col">Ref</th><th scope="col">Commit</th><th scope="col">Duration</th><th scope="col">Created</th></tr></thead><tbody>${rows}</tbody></table>`}
${total > items.length && html`<p class="muted">The newest ${items.length} of ${total} pipelines are shown.</p>`}`;
  }

  /** A page of files of base..head, each patch bounded by git's diff limits; git stops after the page. */
  private async changes(projectPath: string, iid: number, base: string, page: PageRequest, request: FastifyRequest): Promise<Markup> {
    const number = listPage(request);
    const first = (number - 1) * DIFF_FILES_PER_PAGE;
    const { items, total, overflow } = await this.services.mergeRequestDiffs.diffsWindow(projectPath, page.actor, iid, { offset: first, limit: DIFF_FILES_PER_PAGE });
    return html`<h2>Changes</h2>
${items.length === 0 ? html`<p>No changes to show.</p>` : html`<p class="muted">Files ${first + 1} to ${first + items.length} of ${total}.</p>${items.map((file, index) => fileDiff(file, first + index + 1))}`}
${overflow && html`<p class="notice">The diff stops here: it reached GitLab's diff limits (${DIFF_MAX_FILES} files, ${DIFF_MAX_LINES} lines in all).</p>`}
${pager(`${base}/diffs`, {}, number, overflow ? first + items.length : total, DIFF_FILES_PER_PAGE)}`;
  }
}
