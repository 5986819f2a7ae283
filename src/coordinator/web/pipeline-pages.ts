import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CommitsService } from '../services/repository/commits.ts';
import type { UsersService } from '../services/accounts/users.ts';
import type { JobsService } from '../services/ci/pipelines/jobs.ts';
import type { PipelinesService } from '../services/ci/pipelines/pipelines.ts';
import type { PipelineRecord, PipelineScope } from '../../storage/types-ci.ts';
import { accessDenied } from '../../shared/errors.ts';
import { formToken, pageRequest, sameToken, sendPage, sendRefusal, type PageRequest, type WebEdge } from './frame.ts';
import { html } from './html.ts';
import { errorPage, layout } from './layout.ts';
import { formatDuration, jobDuration, projectHref, statusLabel } from './pipeline-format.ts';
import { MAX_PAGE, pastLastPage, requestedPage } from './paging.ts';
import { pipelineGraph, type GraphJob } from './pipeline-graph.ts';
import type { JobAction } from './job-pages.ts';

export interface PipelinePagesServices {
  pipelines: Pick<PipelinesService, 'list' | 'get' | 'jobs' | 'bridges' | 'retry' | 'cancel' | 'canUpdate'>;
  commits: Pick<CommitsService, 'get'>;
  users: Pick<UsersService, 'readable'>;
  jobs: Pick<JobsService, 'bridgeActions' | 'buildActions'>;
}

const PER_PAGE = 20;
/** The jobs a pipeline page shows (GitLab's graph has no paging either; a pipeline past this is cut with a note). */
const MAX_JOBS = 500;
const SCOPES: ReadonlySet<string> = new Set<PipelineScope>(['running', 'pending', 'finished', 'branches', 'tags']);

export type PipelineAction = 'retry' | 'cancel';

/** `/-/pipelines` (list), `/-/pipelines/:id` (the graph) and their POST actions. */
export class PipelinePages {
  constructor(
    private readonly edge: WebEdge,
    private readonly services: PipelinePagesServices,
  ) {}

  async list(projectPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    const query = request.query as Record<string, unknown>;
    const requested = requestedPage(query);
    if (requested > MAX_PAGE) return sendPage(reply, 400, pastLastPage(page.frame, requested));
    const scope = typeof query.scope === 'string' && SCOPES.has(query.scope) ? (query.scope as PipelineScope) : undefined;
    const status = typeof query.status === 'string' && /^[a-z_]{1,40}$/.test(query.status) ? query.status : undefined;
    try {
      const { target, items, total } = await this.services.pipelines.list(projectPath, page.actor, { scope, status, orderBy: 'id', sort: 'desc' }, { offset: (requested - 1) * PER_PAGE, limit: PER_PAGE });
      const base = `${projectHref(page.frame.prefix, target.fullPath)}/-/pipelines`;
      const [titles, users] = await Promise.all([this.commitTitles(projectPath, page, items), this.userNames(page, items)]);
      const rows = items.map((pipeline) => html`<tr>
<td>${statusLabel(pipeline.status)}</td>
<td><a href="${base}/${pipeline.id}">#${pipeline.id}</a></td>
<td>${pipeline.tag ? 'tag ' : ''}${pipeline.ref}</td>
<td><a class="sha" href="${projectHref(page.frame.prefix, target.fullPath)}/-/commit/${pipeline.sha}">${pipeline.sha.slice(0, 8)}</a> ${titles.get(pipeline.sha) ?? ''}</td>
<td>${pipeline.duration === null ? '' : formatDuration(pipeline.duration)}</td>
<td>${pipeline.user_id === null ? '' : (users.get(pipeline.user_id) ?? '')} <span class="muted">${pipeline.source}</span></td>
<td><time datetime="${pipeline.created_at}">${pipeline.created_at.slice(0, 16).replace('T', ' ')}</time></td></tr>`);
      const filters = (pageNumber: number) => `${base}?${new URLSearchParams({ ...(scope && { scope }), ...(status && { status }), page: String(pageNumber) }).toString()}`;
      const previous = requested > 1 ? html`<a rel="prev" href="${filters(requested - 1)}">Previous page</a> ` : null;
      const next = requested * PER_PAGE < total ? html`<a rel="next" href="${filters(requested + 1)}">Next page</a>` : null;
      const tabs = [['All', ''], ['Running', 'running'], ['Finished', 'finished'], ['Branches', 'branches'], ['Tags', 'tags']].map(([label, value]) =>
        html`<a href="${value ? `${base}?scope=${value}` : base}"${(scope ?? '') === value ? html` aria-current="page"` : null}>${label}</a> `);
      const body = html`<p><a href="${projectHref(page.frame.prefix, target.fullPath)}">${target.fullPath}</a></p>
<h1>Pipelines</h1>
<nav class="tabs">${tabs}</nav>
${items.length === 0 ? html`<p>No pipelines to show.</p>` : html`<table><thead><tr><th scope="col">Status</th><th scope="col">Pipeline</th><th scope="col">Ref</th><th scope="col">Commit</th><th scope="col">Duration</th><th scope="col">Triggerer</th><th scope="col">Created</th></tr></thead><tbody>${rows}</tbody></table>`}
<p>${previous}${next}</p>`;
      return sendPage(reply, 200, layout(page.frame, `Pipelines · ${target.fullPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  async show(projectPath: string, pipelineId: number, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const { pipelines } = this.services;
      const { target, view } = await pipelines.get(projectPath, page.actor, pipelineId);
      const [jobs, bridges, mayUpdate, titles] = await Promise.all([
        pipelines.jobs(projectPath, page.actor, pipelineId, { includeRetried: false }, { offset: 0, limit: MAX_JOBS }),
        pipelines.bridges(projectPath, page.actor, pipelineId, {}, { offset: 0, limit: MAX_JOBS }).catch(() => ({ items: [], total: 0 })),
        page.actor ? pipelines.canUpdate(projectPath, page.actor, pipelineId) : Promise.resolve(false),
        this.commitTitles(projectPath, page, [view.pipeline]),
      ]);
      // Each job's buttons follow its own rules (a build's ref and deployment, a trigger job's downstream branch), asked for all rows at once.
      const none = { play: new Set<number>(), retry: new Set<number>(), cancel: new Set<number>() };
      const [buildRights, bridgeRights] = await Promise.all([
        page.actor && jobs.items.length > 0 ? this.services.jobs.buildActions(projectPath, page.actor, jobs.items.map(({ job }) => job)) : none,
        page.actor && bridges.items.length > 0 ? this.services.jobs.bridgeActions(projectPath, page.actor, bridges.items.map(({ job }) => job)) : none,
      ]);
      const project = projectHref(page.frame.prefix, target.fullPath);
      const pipeline = view.pipeline;
      const actionBase = `${project}/-/pipelines/${pipeline.id}`;
      const form = (action: string, label: string, back = false) => (page.frame.viewer ? html`<form class="inline" method="post" action="${action}"><input type="hidden" name="authenticity_token" value="${page.frame.viewer.csrfToken}">${back && html`<input type="hidden" name="return_to" value="pipeline">`}<button type="submit">${label}</button></form>` : null);
      const jobForm = (jobId: number, action: JobAction, label: string) => form(`${project}/-/jobs/${jobId}/${action}`, label, true);
      const graphJobs: GraphJob[] = [
        ...jobs.items.map(({ job }) => ({ id: job.id, name: job.name, stage: job.stage, stageIndex: job.stage_idx, status: job.status, durationSeconds: jobDuration(job), needs: job.needs?.map((need) => need.name) ?? null, href: `${project}/-/jobs/${job.id}` })),
        ...bridges.items.map(({ job, downstream }) => ({
          id: job.id, name: job.name, stage: job.stage, stageIndex: job.stage_idx, status: job.status, durationSeconds: jobDuration(job), needs: job.needs?.map((need) => need.name) ?? null,
          // A trigger job has no job page: it links to the pipeline it started, if any.
          href: downstream ? `${projectHref(page.frame.prefix, downstream.fullPath)}/-/pipelines/${downstream.pipeline.id}` : null,
        })),
      ].sort((a, b) => a.stageIndex - b.stageIndex || a.id - b.id);
      // GitLab's bridge statuses offer play and retry, never cancel (the jobs API cancels builds only).
      const bridgeIds = new Set(bridges.items.map(({ job }) => job.id));
      const jobRows = graphJobs.map((job) => {
        const bridge = bridgeIds.has(job.id);
        const rights = bridge ? bridgeRights : buildRights;
        const actions = [
          rights.play.has(job.id) && job.status === 'manual' && jobForm(job.id, 'play', `Run ${job.name}`),
          rights.retry.has(job.id) && ['failed', 'canceled', 'success'].includes(job.status) && jobForm(job.id, 'retry', `Retry ${job.name}`),
          !bridge && buildRights.cancel.has(job.id) && ['pending', 'running', 'created', 'scheduled', 'waiting_for_resource', 'preparing'].includes(job.status) && jobForm(job.id, 'cancel', `Cancel ${job.name}`),
        ];
        return html`<tr><td>${statusLabel(job.status)}</td><td>${job.stage}</td><td>${job.href === null ? job.name : html`<a href="${job.href}">${job.name}</a>`}</td><td>${job.durationSeconds === null ? '' : formatDuration(job.durationSeconds)}</td><td>${job.needs === null ? '' : `needs: ${job.needs.join(', ') || '(none)'}`}</td><td>${actions}</td></tr>`;
      });
      const downstream = bridges.items.filter((bridge) => bridge.downstream !== null).map(({ job, downstream: child }) =>
        html`<li>${job.name}: <a href="${projectHref(page.frame.prefix, child!.fullPath)}/-/pipelines/${child!.pipeline.id}">${child!.fullPath} #${child!.pipeline.id}</a> ${statusLabel(child!.pipeline.status)}</li>`);
      const upstream = pipeline.parent_pipeline_id !== null && pipeline.source === 'parent_pipeline'
        ? html`<p>Child pipeline of <a href="${project}/-/pipelines/${pipeline.parent_pipeline_id}">#${pipeline.parent_pipeline_id}</a></p>` : null;
      const cancelable = ['created', 'pending', 'running', 'manual', 'scheduled', 'waiting_for_resource', 'preparing'].includes(pipeline.status);
      const retriable = ['failed', 'canceled'].includes(pipeline.status) || jobs.items.some(({ job }) => job.status === 'failed' || job.status === 'canceled');
      const body = html`<p><a href="${project}">${target.fullPath}</a> › <a href="${project}/-/pipelines">Pipelines</a></p>
<h1>Pipeline #${pipeline.id} ${statusLabel(pipeline.status)}</h1>
<p>${pipeline.tag ? 'Tag' : 'Branch'} <strong>${pipeline.ref}</strong>, commit <a class="sha" href="${project}/-/commit/${pipeline.sha}">${pipeline.sha.slice(0, 8)}</a> ${titles.get(pipeline.sha) ?? ''}</p>
<p class="muted">Triggered by ${view.user ? `${view.user.name} (@${view.user.username})` : 'nobody'} through ${pipeline.source}, ${pipeline.created_at.slice(0, 16).replace('T', ' ')}${pipeline.duration === null ? '' : `, ran ${formatDuration(pipeline.duration)}`}${pipeline.coverage === null ? '' : `, coverage ${pipeline.coverage}%`}</p>
${pipeline.yaml_errors && html`<p class="notice" role="alert">${pipeline.yaml_errors}</p>`}
${upstream}
${mayUpdate && html`<div class="actions">${retriable && form(`${actionBase}/retry`, 'Retry pipeline')}${cancelable && form(`${actionBase}/cancel`, 'Cancel pipeline')}</div>`}
${graphJobs.length === 0 ? html`<p>This pipeline has no jobs.</p>` : html`<div class="graph">${pipelineGraph(graphJobs)}</div>`}
${jobs.total > MAX_JOBS && html`<p class="muted">The first ${MAX_JOBS} of ${jobs.total} jobs are shown.</p>`}
${downstream.length > 0 && html`<h2>Downstream</h2><ul>${downstream}</ul>`}
<h2>Jobs</h2>
<table><thead><tr><th scope="col">Status</th><th scope="col">Stage</th><th scope="col">Name</th><th scope="col">Duration</th><th scope="col">Needs</th><th scope="col">Actions</th></tr></thead><tbody>${jobRows}</tbody></table>`;
      return sendPage(reply, 200, layout(page.frame, `Pipeline #${pipeline.id} · ${target.fullPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  /** POST `/-/pipelines/:id/{retry,cancel}`: the API's services, then back to the page. (The job buttons post to the job's own path, job-pages.ts.) */
  async act(projectPath: string, pipelineId: number, action: PipelineAction, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    if (!page.actor || !page.session) return sendRefusal(reply, page, accessDenied(), null);
    if (!sameToken(page.session.csrfToken, formToken(request))) return sendPage(reply, 422, errorPage(page.frame, 400, 'The form expired: reload the page and try again.'));
    try {
      const { pipelines } = this.services;
      if (action === 'retry') await pipelines.retry(projectPath, page.actor, pipelineId);
      else await pipelines.cancel(projectPath, page.actor, pipelineId);
      return reply.redirect(`${projectHref(page.frame.prefix, projectPath)}/-/pipelines/${pipelineId}`, 303);
    } catch (error) {
      return sendRefusal(reply, page, error, null);
    }
  }

  /** Commit titles of a page of pipelines (at most 20 reads; a commit the repository lacks shows none). */
  private async commitTitles(projectPath: string, page: PageRequest, pipelines: readonly PipelineRecord[]): Promise<Map<string, string>> {
    const shas = [...new Set(pipelines.map((pipeline) => pipeline.sha))];
    const found = await Promise.all(shas.map((sha) => this.services.commits.get(projectPath, page.actor, sha, false).then((commit) => [sha, commit.commit.title] as const, () => null)));
    return new Map(found.filter((entry) => entry !== null));
  }

  private async userNames(page: PageRequest, pipelines: readonly PipelineRecord[]): Promise<Map<number, string>> {
    const ids = [...new Set(pipelines.flatMap((pipeline) => (pipeline.user_id === null ? [] : [pipeline.user_id])))];
    const found = await Promise.all(ids.map((id) => this.services.users.readable(page.actor, String(id)).then((user) => [id, user.name] as const, () => null)));
    return new Map(found.filter((entry) => entry !== null));
  }
}
