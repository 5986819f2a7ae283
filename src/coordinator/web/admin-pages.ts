import type { FastifyInstance } from 'fastify';
import { accessDenied } from '../../shared/errors.ts';
import type { JobQueueMetrics } from '../services/monitoring/job-queue.ts';
import type { RunnersService } from '../services/ci/runners/runners.ts';
import { PAGE_ROUTE, pageRequest, sendPage, sendRefusal, type WebEdge } from './frame.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';
import { MAX_PAGE, pastLastPage, requestedPage } from './paging.ts';
import { formatDuration } from './pipeline-format.ts';

export interface AdminPagesServices {
  runners: Pick<RunnersService, 'listAll'>;
  jobQueueMetrics: Pick<JobQueueMetrics, 'read'>;
}

const PER_PAGE = 20;

/** `/admin/runners` and `/admin/background_jobs` (the task queue): administrators only, as the API's `GET /runners/all` and queue metrics decide. */
export function registerAdminPages(app: FastifyInstance, edge: WebEdge, services: AdminPagesServices): void {
  app.get('/admin/runners', PAGE_ROUTE, async (request, reply) => {
    const page = await pageRequest(edge, request);
    const number = requestedPage(request.query);
    try {
      if (!page.actor) throw accessDenied();
      if (number > MAX_PAGE) return sendPage(reply, 400, pastLastPage(page.frame, number));
      const { items, total } = await services.runners.listAll(page.actor, {}, { offset: (number - 1) * PER_PAGE, limit: PER_PAGE });
      const rows = items.map(({ runner, status }) => html`<tr>
<td>#${runner.id} ${runner.description}</td><td><span class="status status-${status}">${status}</span>${!runner.active && ' (paused)'}</td><td>${runner.runner_type.replace('_type', '')}</td>
<td>${runner.version ?? ''}</td><td>${runner.contacted_at === null ? 'never' : html`<time datetime="${runner.contacted_at}">${runner.contacted_at.slice(0, 19).replace('T', ' ')}</time>`}</td><td>${runner.tag_list.join(', ')}</td></tr>`);
      const { prefix } = page.frame;
      const previous = number > 1 ? html`<a rel="prev" href="${prefix}/admin/runners?page=${number - 1}">Previous page</a> ` : null;
      const next = number * PER_PAGE < total ? html`<a rel="next" href="${prefix}/admin/runners?page=${number + 1}">Next page</a>` : null;
      const body = html`<h1>Runners (${total})</h1>
<p><a href="${prefix}/admin/background_jobs">Task queue</a></p>
${items.length === 0 ? html`<p>No runners are registered.</p>` : html`<table><thead><tr><th scope="col">Runner</th><th scope="col">Status</th><th scope="col">Type</th><th scope="col">Version</th><th scope="col">Last contact</th><th scope="col">Tags</th></tr></thead><tbody>${rows}</tbody></table>`}
<p>${previous}${next}</p>`;
      return sendPage(reply, 200, layout(page.frame, 'Runners', body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  });

  app.get('/admin/background_jobs', PAGE_ROUTE, async (request, reply) => {
    const page = await pageRequest(edge, request);
    try {
      const reading = await services.jobQueueMetrics.read(page.actor);
      const queues = reading.queues.map((queue) => html`<tr><td>${queue.name}</td><td>${queue.backlog}</td><td>${queue.backlog === 0 ? '' : formatDuration(queue.latencySeconds)}</td></tr>`);
      const processes = reading.processes.map((process) => html`<tr><td>${process.hostname}:${process.pid}</td><td><time datetime="${process.startedAt}">${process.startedAt.slice(0, 19).replace('T', ' ')}</time></td><td>${process.busy} of ${process.concurrency}</td></tr>`);
      const body = html`<h1>Task queue</h1>
<p>${reading.jobs.enqueued} waiting, ${reading.jobs.dead} out of attempts; ${reading.jobs.processed} processed and ${reading.jobs.failed} failed since the installation began.</p>
<h2>Queues</h2>
<table><thead><tr><th scope="col">Task kind</th><th scope="col">Backlog</th><th scope="col">Oldest waits</th></tr></thead><tbody>${queues}</tbody></table>
<h2>Coordinators</h2>
<table><thead><tr><th scope="col">Process</th><th scope="col">Started</th><th scope="col">Busy</th></tr></thead><tbody>${processes}</tbody></table>`;
      return sendPage(reply, 200, layout(page.frame, 'Task queue', body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  });
}
