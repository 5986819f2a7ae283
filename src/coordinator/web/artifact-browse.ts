import type { ArchiveChild } from '../services/ci/pipelines/job-artifacts.ts';
import type { JobView } from '../services/ci/pipelines/job-views.ts';
import { html, type Markup } from './html.ts';
import { layout, type PageFrame } from './layout.ts';
import { pathHref, projectHref } from './pipeline-format.ts';

/** Children of one directory a browse page lists (one level, read from the member index); past this the page says so. */
export const ARTIFACT_CHILDREN_SHOWN = 1000;

export function artifactBrowsePage(frame: PageFrame, view: JobView, directory: string, listing: { children: readonly ArchiveChild[]; complete: boolean }): Markup {
  const { job, target } = view;
  const project = projectHref(frame.prefix, target.fullPath);
  const jobUrl = `${project}/-/jobs/${job.id}`;
  const children = [...listing.children].sort((a, b) => Number(b.directory) - Number(a.directory) || a.name.localeCompare(b.name));
  const parts = directory.split('/').filter((part) => part !== '');
  const crumbs = parts.map((part, index) => html` / <a href="${jobUrl}/artifacts/browse/${pathHref(parts.slice(0, index + 1).join('/'))}/">${part}</a>`);
  const parent = parts.length === 0 ? null : parts.length === 1 ? `${jobUrl}/artifacts/browse` : `${jobUrl}/artifacts/browse/${pathHref(parts.slice(0, -1).join('/'))}/`;
  const rows = children.map((child) => {
    const path = pathHref(`${directory}${child.name}`);
    return child.directory
      ? html`<tr><td><a href="${jobUrl}/artifacts/browse/${path}/">${child.name}/</a></td><td class="muted">directory</td></tr>`
      : html`<tr><td><a href="${jobUrl}/artifacts/file/${path}" download>${child.name}</a></td><td>${child.size} bytes</td></tr>`;
  });
  const body = html`<nav class="crumbs" aria-label="Breadcrumb"><a href="${project}">${target.fullPath}</a> / <a href="${jobUrl}">${job.name} #${job.id}</a> / <a href="${jobUrl}/artifacts/browse">artifacts</a>${crumbs}</nav>
<h1>Artifacts of ${job.name} <span class="muted">#${job.id}</span></h1>
<p><a href="${jobUrl}/artifacts/download" download>Download the archive</a></p>
<table><thead><tr><th scope="col">Name</th><th scope="col">Size</th></tr></thead><tbody>
${parent !== null && html`<tr><td><a href="${parent}">..</a></td><td></td></tr>`}
${rows}
</tbody></table>
${children.length === 0 && html`<p>This directory is empty.</p>`}
${!listing.complete && html`<p class="muted">This directory holds more than ${ARTIFACT_CHILDREN_SHOWN} entries: the first ${ARTIFACT_CHILDREN_SHOWN} by name are listed; download the archive to see them all.</p>`}`;
  return layout(frame, `Artifacts · ${job.name} (#${job.id}) · ${target.fullPath}`, body);
}
