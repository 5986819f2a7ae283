import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JobsService } from '../services/ci/pipelines/jobs.ts';
import type { JobStatus } from '../../storage/types-ci.ts';
import { pageRequest, sendPage, sendRefusal, type WebEdge } from './frame.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';
import { formatDuration, jobDuration, pathHref, projectHref, statusLabel } from './pipeline-format.ts';
import { MAX_PAGE, pastLastPage, requestedPage } from './paging.ts';

export interface JobListPagesServices {
  jobs: Pick<JobsService, 'list'>;
}

const PER_PAGE = 20;
/** GitLab's jobs page tabs (`?scope=`): finished is its completed statuses. */
const SCOPES: Readonly<Record<string, readonly JobStatus[]>> = {
  pending: ['pending'],
  running: ['running'],
  finished: ['success', 'failed', 'canceled', 'skipped'],
};

/** `/-/jobs`: the project's jobs, newest first (the job page's breadcrumb leads here, as GitLab's does). */
export class JobListPages {
  constructor(
    private readonly edge: WebEdge,
    private readonly services: JobListPagesServices,
  ) {}

  async list(projectPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    const query = request.query as Record<string, unknown>;
    const requested = requestedPage(query);
    if (requested > MAX_PAGE) return sendPage(reply, 400, pastLastPage(page.frame, requested));
    const scope = typeof query.scope === 'string' && Object.hasOwn(SCOPES, query.scope) ? query.scope : undefined;
    try {
      const { items, total } = await this.services.jobs.list(projectPath, page.actor, scope === undefined ? undefined : SCOPES[scope], { offset: (requested - 1) * PER_PAGE, limit: PER_PAGE });
      const fullPath = items[0]?.target.fullPath ?? projectPath;
      const project = projectHref(page.frame.prefix, fullPath);
      const base = `${project}/-/jobs`;
      const rows = items.map(({ job, pipeline }) => {
        const duration = jobDuration(job);
        return html`<tr>
<td>${statusLabel(job.status)}</td>
<td><a href="${base}/${job.id}">${job.name} #${job.id}</a>${job.retried ? html` <span class="muted">(retried)</span>` : null}</td>
<td>${job.tag ? 'tag ' : ''}<a href="${project}/-/tree/${pathHref(job.ref)}">${job.ref}</a> <a class="sha" href="${project}/-/commit/${job.sha}">${job.sha.slice(0, 8)}</a></td>
<td>${job.stage}</td>
<td>${pipeline ? html`<a href="${project}/-/pipelines/${pipeline.id}">#${pipeline.id}</a>` : null}</td>
<td>${duration === null ? '' : formatDuration(duration)}</td>
<td>${job.coverage === null ? '' : `${job.coverage}%`}</td>
<td><time datetime="${job.created_at}">${job.created_at.slice(0, 16).replace('T', ' ')}</time></td></tr>`;
      });
      const at = (pageNumber: number) => `${base}?${new URLSearchParams({ ...(scope && { scope }), page: String(pageNumber) }).toString()}`;
      const previous = requested > 1 ? html`<a rel="prev" href="${at(requested - 1)}">Previous page</a> ` : null;
      const next = requested * PER_PAGE < total ? html`<a rel="next" href="${at(requested + 1)}">Next page</a>` : null;
      const tabs = [['All', ''], ['Pending', 'pending'], ['Running', 'running'], ['Finished', 'finished']].map(([label, value]) =>
        html`<a href="${value ? `${base}?scope=${value}` : base}"${(scope ?? '') === value ? html` aria-current="page"` : null}>${label}</a> `);
      const body = html`<p><a href="${project}">${fullPath}</a></p>
<h1>Jobs</h1>
<nav class="tabs">${tabs}</nav>
${items.length === 0 ? html`<p>No jobs to show.</p>` : html`<table><thead><tr><th scope="col">Status</th><th scope="col">Job</th><th scope="col">Ref and commit</th><th scope="col">Stage</th><th scope="col">Pipeline</th><th scope="col">Duration</th><th scope="col">Coverage</th><th scope="col">Created</th></tr></thead><tbody>${rows}</tbody></table>`}
<p>${previous}${next}</p>`;
      return sendPage(reply, 200, layout(page.frame, `Jobs · ${fullPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }
}
