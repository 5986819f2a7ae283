import type { FastifyReply, FastifyRequest } from 'fastify';
import { isGantryError } from '../../shared/errors.ts';
import { errorStatus } from '../http/error-responses.ts';
import type { ProjectActions } from '../services/namespaces/project-actions.ts';
import type { BranchesService } from '../services/repository/branches.ts';
import type { CommitsService } from '../services/repository/commits.ts';
import type { TagsService } from '../services/repository/tags.ts';
import type { PipelinesService } from '../services/ci/pipelines/pipelines.ts';
import { readPrefix } from './blob-reading.ts';
import { pageRequest, sendPage, sendRefusal, type PageRequest, type WebEdge } from './frame.ts';
import { html, type Markup } from './html.ts';
import { layout } from './layout.ts';
import { renderMarkdown } from './markdown.ts';
import { formatDuration, pathHref, projectHref, statusLabel } from './pipeline-format.ts';
import { treeTable, type TreePagesServices } from './tree-pages.ts';

export interface ProjectPagesServices extends TreePagesServices {
  projectActions: Pick<ProjectActions, 'get'>;
  branches: Pick<BranchesService, 'list'>;
  tags: Pick<TagsService, 'list'>;
  commits: Pick<CommitsService, 'get'>;
  pipelines: Pick<PipelinesService, 'latest' | 'list'>;
}

/** The README bytes a project page renders (GitLab stops rendering large files too). */
const README_BUDGET = 256 * 1024;
/** Branches and tags listed on the project page; the counts are of all of them. */
const REFS_SHOWN = 20;
const README_NAME = /^readme(\.(md|markdown))?$/i;

/** `/:namespace/:project` (README, files, branches, tags, latest pipeline) and `/-/commit/:sha`. */
export class ProjectHomePages {
  constructor(
    private readonly edge: WebEdge,
    private readonly services: ProjectPagesServices,
  ) {}

  async project(projectPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const view = await this.services.projectActions.get({ ref: projectPath, statistics: false, withCustomAttributes: false }, page.actor);
      const fullPath = `${view.namespace.full_path}/${view.project.path}`;
      const base = projectHref(page.frame.prefix, fullPath);
      const defaultBranch = view.project.default_branch;
      const [entries, branches, tags, latest, pipelinesListed] = await Promise.all([
        defaultBranch ? this.rootEntries(fullPath, page, defaultBranch) : Promise.resolve(null),
        unlessRefused(this.services.branches.list(fullPath, page.actor, undefined, { offset: 0, limit: REFS_SHOWN })),
        unlessRefused(this.services.tags.list(fullPath, page.actor, { orderBy: 'updated', sort: 'desc' }, { offset: 0, limit: REFS_SHOWN })),
        optional(this.services.pipelines.latest(fullPath, page.actor, undefined)),
        // Whether the pipelines page would open for this viewer (a guest of a private project's would not).
        optional(this.services.pipelines.list(fullPath, page.actor, { orderBy: 'id', sort: 'desc' }, { offset: 0, limit: 1 })),
      ]);
      const readmeEntry = entries === REFUSED ? undefined : entries?.find((entry) => entry.type === 'blob' && README_NAME.test(entry.name));
      const readme = readmeEntry && defaultBranch ? await this.readme(fullPath, page, defaultBranch, readmeEntry.path) : null;
      const branchLinks = (branches === REFUSED ? [] : (branches?.items ?? [])).map(({ branch, isDefault }) => html`<li><a href="${base}/-/tree/${pathHref(branch.name)}">${branch.name}</a>${isDefault && html` <span class="muted">default</span>`}</li>`);
      const tagLinks = (tags === REFUSED ? [] : (tags?.items ?? [])).map(({ tag }) => html`<li><a href="${base}/-/tree/${pathHref(tag.name)}">${tag.name}</a></li>`);
      const pipeline = latest?.view.pipeline;
      const body = html`<h1>${view.namespace.full_name} / ${view.project.name}</h1>
${view.project.description && html`<p>${view.project.description}</p>`}
<p class="muted">${view.project.visibility}${pipelinesListed && html` · <a href="${base}/-/pipelines">Pipelines</a>`}${pipeline && pipelinesListed && html` · latest pipeline <a href="${base}/-/pipelines/${pipeline.id}">#${pipeline.id}</a> ${statusLabel(pipeline.status)}${pipeline.duration !== null && ` in ${formatDuration(pipeline.duration)}`}`}</p>
${entries === REFUSED ? '' : entries === null ? html`<p>The repository is empty.</p>` : html`<h2>Files on ${defaultBranch}</h2>${treeTable(base, defaultBranch ?? '', entries)}`}
${readme && html`<h2>${readmeEntry!.name}</h2><article class="readme">${readme}</article>`}
${branches !== REFUSED && tags !== REFUSED && html`<div class="refs">
<section><h2>Branches (${branches?.total ?? 0})</h2><ul>${branchLinks}</ul>${(branches?.total ?? 0) > REFS_SHOWN && html`<p class="muted">The ${REFS_SHOWN} first by name are shown.</p>`}<p><a href="${base}/-/branches">All branches</a>${defaultBranch && html` · <a href="${base}/-/commits/${pathHref(defaultBranch)}">History</a>`}</p></section>
<section><h2>Tags (${tags?.total ?? 0})</h2><ul>${tagLinks}</ul>${(tags?.total ?? 0) > REFS_SHOWN && html`<p class="muted">The ${REFS_SHOWN} newest are shown.</p>`}<p><a href="${base}/-/tags">All tags</a> · <a href="${base}/-/releases">Releases</a></p></section>
</div>`}`;
      return sendPage(reply, 200, layout(page.frame, fullPath, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  async commit(projectPath: string, sha: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const { commit } = await this.services.commits.get(projectPath, page.actor, sha, false);
      const pipelines = await optional(this.services.pipelines.list(projectPath, page.actor, { sha: commit.id, orderBy: 'id', sort: 'desc' }, { offset: 0, limit: 20 }));
      const base = projectHref(page.frame.prefix, projectPath);
      const parents = commit.parent_ids.map((parent) => html`<a class="sha" href="${base}/-/commit/${parent}">${parent.slice(0, 8)}</a> `);
      const rows = (pipelines?.items ?? []).map((pipeline) => html`<li><a href="${base}/-/pipelines/${pipeline.id}">#${pipeline.id}</a> ${statusLabel(pipeline.status)} on ${pipeline.ref}</li>`);
      const body = html`<p><a href="${base}">${projectPath}</a></p>
<h1>${commit.title}</h1>
<p class="muted">Commit <span class="sha">${commit.id}</span> by ${commit.author.name} &lt;${commit.author.email}&gt;, <time datetime="${commit.author.date}">${commit.author.date}</time></p>
<p>Parents: ${parents.length === 0 ? 'none' : parents} · <a href="${base}/-/tree/${commit.id}">Browse files</a></p>
${commit.message.trim() !== commit.title && html`<pre class="message">${commit.message.trim()}</pre>`}
<h2>Pipelines</h2>
${rows.length === 0 ? html`<p>No pipelines to show.</p>` : html`<ul>${rows}</ul>`}`;
      return sendPage(reply, 200, layout(page.frame, `${commit.title} · ${projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  /** The default branch's top directory; null for an empty repository, REFUSED for one the viewer may not browse. */
  private async rootEntries(fullPath: string, page: PageRequest, ref: string) {
    const listed = await unlessRefused(this.services.browsing.tree(fullPath, page.actor, { ref, path: '', recursive: false }, { offset: 0, limit: 1000 }));
    return listed === REFUSED ? REFUSED : (listed?.items ?? null);
  }

  private async readme(fullPath: string, page: PageRequest, ref: string, path: string): Promise<Markup | null> {
    const raw = await optional(this.services.files.raw(fullPath, page.actor, path, ref));
    if (!raw) return null;
    const bytes = await readPrefix(raw.stream, README_BUDGET);
    const directory = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    const links = { project: projectHref(page.frame.prefix, fullPath), ref, directory };
    return html`${renderMarkdown(bytes.toString('utf8'), links)}${raw.blob.size > bytes.length && html`<p class="muted">The README is cut at ${README_BUDGET} bytes.</p>`}`;
  }
}

/** What a refused or missing part of the page answers: nothing shown (a server failure still fails). */
async function optional<T>(promise: Promise<T>): Promise<T | null> {
  const part = await unlessRefused(promise);
  return part === REFUSED ? null : part;
}

/** A part the viewer may not read, which the page leaves out rather than show as empty. */
const REFUSED = Symbol('refused');

/** Like `optional`, but telling a refused part (REFUSED) from a missing one (null). */
async function unlessRefused<T>(promise: Promise<T>): Promise<T | null | typeof REFUSED> {
  try {
    return await promise;
  } catch (error) {
    if (!isGantryError(error)) throw error;
    const status = errorStatus(error);
    if (status === 403) return REFUSED;
    if (status < 500) return null;
    throw error;
  }
}
