import type { ArtifactEntryRecord } from '../../storage/types-ci-jobs.ts';
import type { JobView } from '../services/ci/pipelines/job-views.ts';
import { html, type Markup } from './html.ts';
import { layout, type PageFrame } from './layout.ts';
import { pathHref, projectHref } from './pipeline-format.ts';

/**
 * Index records a browse page reads under the directory (all its descendants come in path order,
 * so a deep subtree can hide later names past this; the page then says so).
 */
export const ARTIFACT_ENTRIES_READ = 5000;

interface Child {
  name: string;
  directory: boolean;
  size: number;
}

/** The directory's own children, named by their first path segment under it (directories whether the zip lists them or not). */
export function directChildren(entries: readonly ArtifactEntryRecord[], directory: string): Child[] {
  const children = new Map<string, Child>();
  for (const entry of entries) {
    if (!entry.path.startsWith(directory) || entry.path === directory) continue;
    const rest = entry.path.slice(directory.length);
    const slash = rest.indexOf('/');
    const isDirectory = slash >= 0;
    const name = isDirectory ? rest.slice(0, slash) : rest;
    if (name === '' || children.has(name)) continue;
    children.set(name, { name, directory: isDirectory, size: isDirectory ? 0 : entry.size });
  }
  return [...children.values()].sort((a, b) => Number(b.directory) - Number(a.directory) || a.name.localeCompare(b.name));
}

export function artifactBrowsePage(frame: PageFrame, view: JobView, directory: string, entries: readonly ArtifactEntryRecord[]): Markup {
  const { job, target } = view;
  const project = projectHref(frame.prefix, target.fullPath);
  const jobUrl = `${project}/-/jobs/${job.id}`;
  const children = directChildren(entries, directory);
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
${entries.length >= ARTIFACT_ENTRIES_READ && html`<p class="muted">The archive holds more than ${ARTIFACT_ENTRIES_READ} entries here: some may not be listed; download the archive to see them all.</p>`}`;
  return layout(frame, `Artifacts · ${job.name} (#${job.id}) · ${target.fullPath}`, body);
}
