import { isCompletedStatus } from '../../pipeline/index.ts';
import type { JobView } from '../services/ci/pipelines/job-views.ts';
import { html, type Markup } from './html.ts';
import { layout, type PageFrame } from './layout.ts';
import { formatDuration } from './client/log-parser.ts';
import { failureCallout } from './failure-messages.ts';

/** Statuses a reader watches grow: the page polls the log while the job is in one. */
export const ACTIVE_JOB_STATUSES: ReadonlySet<string> = new Set(['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'canceling']);

/** A symbol beside each status's word: status never by colour alone. */
const STATUS_SYMBOLS: Record<string, string> = {
  success: '✓', failed: '✗', canceled: '⊘', canceling: '⊘', skipped: '»', manual: '⚙', scheduled: '⏱', running: '●', pending: '◔', created: '○', waiting_for_resource: '◷',
};

export interface JobPageModel {
  view: JobView;
  /** The viewer may cancel or retry it (asked of the permission module by the jobs service). */
  mayUpdate: boolean;
  /** `/-/gantry/job-log.<hash>.js`, or null when the client script was not built. */
  scriptPath: string | null;
  /** Epoch milliseconds: a running job's duration so far. */
  now: number;
}

function seconds(from: string | null, to: string | null, now: number): number | null {
  if (from === null) return null;
  return ((to === null ? now : Date.parse(to)) - Date.parse(from)) / 1000;
}

export function statusLabel(status: string): Markup {
  return html`<span class="status status-${status}" id="job-status-label"><span aria-hidden="true">${STATUS_SYMBOLS[status] ?? '•'}</span> <span id="job-status">${status}</span></span>`;
}

/** GitLab's job page callout for a failed job (`callout_message`: none for a script failure). */
function failureReasonEntry(status: string, reason: string | null): Markup | false {
  const callout = status === 'failed' && reason !== null ? failureCallout(reason) : null;
  if (callout === null) return false;
  return html`<dt>Failure reason</dt><dd id="job-failure-reason">${callout.message}${callout.helpUrl !== null && html` <a href="${callout.helpUrl}" rel="noreferrer">How do I fix it?</a>`}</dd>`;
}

export function jobPage(frame: PageFrame, model: JobPageModel): Markup {
  const { view, mayUpdate, scriptPath, now } = model;
  const { job, target, runner, pipeline, commit } = view;
  const projectUrl = `${frame.prefix}/${target.fullPath}`;
  const jobUrl = `${projectUrl}/-/jobs/${job.id}`;
  const duration = seconds(job.started_at, job.finished_at, now);
  const queued = job.queued_at === null ? null : seconds(job.queued_at, job.started_at, now);
  const archive = view.artifacts.find((artifact) => artifact.file_type === 'archive');
  const token = frame.viewer?.csrfToken ?? '';
  const action = (name: 'retry' | 'cancel' | 'play', label: string) =>
    html`<form method="post" action="${jobUrl}/${name}"><input type="hidden" name="authenticity_token" value="${token}"><button type="submit">${label}</button></form>`;
  const actions = mayUpdate
    ? [job.status === 'manual' && action('play', 'Run'), isCompletedStatus(job.status) && action('retry', 'Retry'), ACTIVE_JOB_STATUSES.has(job.status) && job.status !== 'canceling' && action('cancel', 'Cancel')]
    : [];
  const active = ACTIVE_JOB_STATUSES.has(job.status);
  const body = html`<nav class="crumbs" aria-label="Breadcrumb"><a href="${projectUrl}">${target.fullPath}</a> / <a href="${projectUrl}/-/jobs">Jobs</a> / #${job.id}</nav>
<h1>${statusLabel(job.status)} ${job.name} <span class="muted">#${job.id}</span></h1>
<div class="job-actions">${actions}</div>
${job.status === 'waiting_for_resource' && job.resource_group !== null && html`<p class="notice">This job is waiting for resource: ${job.resource_group}</p>`}
<dl class="job-meta">
<dt>Stage</dt><dd>${job.stage}</dd>
<dt>Duration</dt><dd>${duration === null ? 'not started' : formatDuration(duration)}${queued !== null && html` <span class="muted">(queued ${formatDuration(queued)})</span>`}</dd>
<dt>Runner</dt><dd>${runner ? html`${runner.description || 'runner'} (#${runner.id})` : 'none yet'}</dd>
<dt>Pipeline</dt><dd>${pipeline ? html`<a href="${projectUrl}/-/pipelines/${pipeline.id}">#${pipeline.id}</a> for <a href="${projectUrl}/-/tree/${job.ref}">${job.ref}</a>` : job.ref}</dd>
<dt>Commit</dt><dd><a href="${projectUrl}/-/commit/${job.sha}"><code>${job.sha.slice(0, 8)}</code></a>${commit && html` ${commit.title}`}</dd>
${job.coverage !== null && html`<dt>Coverage</dt><dd>${job.coverage}%</dd>`}
${failureReasonEntry(job.status, job.failure_reason)}
<dt>Artifacts</dt><dd>${archive && job.erased_at === null ? html`<a href="${jobUrl}/artifacts/download" download>Download</a> · <a href="${jobUrl}/artifacts/browse">Browse</a> <span class="muted">(${archive.size} bytes)</span>` : 'none'}</dd>
</dl>
<div class="log-tools">
<a href="${jobUrl}/raw">Raw log</a>
<a href="${jobUrl}/raw?download=true" download>Download log</a>
<label><input type="checkbox" id="log-timestamps" checked> Timestamps</label>
<form id="log-search" role="search"><label for="log-query">Search the log</label> <input id="log-query" type="search"> <button type="submit">Next</button> <button type="button" id="log-previous">Previous</button> <span id="log-search-result" role="status"></span></form>
<button type="button" id="log-bottom">Scroll to bottom</button>
</div>
<div id="log-box" class="log-box" tabindex="0"><div id="log" class="log" role="log" aria-label="Job log" data-raw="${jobUrl}/raw" data-active="${active}"></div></div>
${scriptPath === null ? html`<p class="notice">The live log's script was not built (scripts/bundle-web-client.mjs): read the <a href="${jobUrl}/raw">raw log</a>.</p>` : html`<script src="${frame.prefix}${scriptPath}" defer></script>`}`;
  return layout(frame, `${job.name} (#${job.id}) · ${target.fullPath}`, body);
}
