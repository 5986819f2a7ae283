import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ReleasesService, ReleaseView } from '../services/repository/releases.ts';
import type { TagsService, TagView } from '../services/repository/tags.ts';
import { pageRequest, sendPage, sendRefusal, type WebEdge } from './frame.ts';
import { html, type Markup } from './html.ts';
import { layout } from './layout.ts';
import { MAX_PAGE, pastLastPage, requestedPage } from './paging.ts';
import { pathHref, projectHref } from './pipeline-format.ts';
import { markdownBlock, pager, personName, when } from './planning-format.ts';

export interface ReleasePagesServices {
  releases: Pick<ReleasesService, 'list' | 'get'>;
  tags: Pick<TagsService, 'list' | 'get'>;
}

/** Releases or tags one page lists (GitLab's release and tag pages page by 20 too). */
const PER_PAGE = 20;
/** Source archives every release offers, as the API's `assets.sources` lists them. */
const ARCHIVE_FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'] as const;

/**
 * `/-/releases` and `/-/releases/:tag` (what a release's `_links.self` and its webhook's `url`
 * name), `/-/tags` and `/-/tags/:tag` (a release's `tag_path`), read-only, through the releases
 * and tags services with the viewer as the actor: a viewer who may not read the repository
 * sees neither, as the API refuses them.
 */
export class ReleasePages {
  constructor(
    private readonly edge: WebEdge,
    private readonly services: ReleasePagesServices,
  ) {}

  async releases(projectPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    const number = requestedPage(request.query);
    if (number > MAX_PAGE) return sendPage(reply, 400, pastLastPage(page.frame, number));
    try {
      const { items, total } = await this.services.releases.list(projectPath, page.actor, { orderBy: 'released_at', sort: 'desc' }, { offset: (number - 1) * PER_PAGE, limit: PER_PAGE });
      const project = projectHref(page.frame.prefix, projectPath);
      const body = html`<p><a href="${project}">${projectPath}</a></p>
<h1>Releases</h1>
${items.length === 0 ? html`<p>No releases to show.</p>` : items.map((view) => html`<section class="release">${releaseSummary(page.frame.prefix, projectPath, view, true)}</section>`)}
${pager(`${project}/-/releases`, {}, number, total, PER_PAGE)}`;
      return sendPage(reply, 200, layout(page.frame, `Releases · ${projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  async release(projectPath: string, tagName: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const { view } = await this.services.releases.get(projectPath, page.actor, tagName);
      const project = projectHref(page.frame.prefix, projectPath);
      const body = html`<p><a href="${project}">${projectPath}</a> › <a href="${project}/-/releases">Releases</a></p>
${releaseSummary(page.frame.prefix, projectPath, view, false)}`;
      return sendPage(reply, 200, layout(page.frame, `${view.release.name ?? view.release.tag_name} · ${projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  async tags(projectPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    const number = requestedPage(request.query);
    if (number > MAX_PAGE) return sendPage(reply, 400, pastLastPage(page.frame, number));
    try {
      const { items, total } = await this.services.tags.list(projectPath, page.actor, { orderBy: 'updated', sort: 'desc' }, { offset: (number - 1) * PER_PAGE, limit: PER_PAGE });
      const project = projectHref(page.frame.prefix, projectPath);
      const rows = items.map((view) => html`<tr>${tagCells(project, view)}</tr>`);
      const body = html`<p><a href="${project}">${projectPath}</a></p>
<h1>Tags</h1>
${items.length === 0 ? html`<p>No tags to show.</p>` : html`<table><thead><tr><th scope="col">Tag</th><th scope="col">Commit</th><th scope="col">Release</th></tr></thead><tbody>${rows}</tbody></table>`}
${pager(`${project}/-/tags`, {}, number, total, PER_PAGE)}`;
      return sendPage(reply, 200, layout(page.frame, `Tags · ${projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  async tag(projectPath: string, name: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const { view } = await this.services.tags.get(projectPath, page.actor, name);
      const project = projectHref(page.frame.prefix, projectPath);
      const { tag } = view;
      const body = html`<p><a href="${project}">${projectPath}</a> › <a href="${project}/-/tags">Tags</a></p>
<h1>${tag.name}${view.protected && html` <span class="muted">protected</span>`}</h1>
<p>${commitLine(project, view)}</p>
${tag.message !== null && tag.message.trim() !== '' && html`<pre class="message">${tag.message.trim()}</pre>`}
${tag.tagger && html`<p class="muted">Tagged by ${tag.tagger.name}, <time datetime="${tag.tagger.date}">${tag.tagger.date}</time></p>`}
<p><a href="${project}/-/tree/${pathHref(tag.name)}">Browse files</a>${view.release && html` · <a href="${project}/-/releases/${pathHref(tag.name)}">Release ${view.release.name ?? tag.name}</a>`}</p>`;
      return sendPage(reply, 200, layout(page.frame, `${tag.name} · ${projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }
}

function commitLine(project: string, view: Pick<TagView, 'tag'>): Markup {
  const { commit } = view.tag;
  return html`<a class="sha" href="${project}/-/commit/${commit.id}">${commit.id.slice(0, 8)}</a> ${commit.title}`;
}

function tagCells(project: string, view: TagView): Markup {
  const name = view.tag.name;
  return html`<td><a href="${project}/-/tags/${pathHref(name)}">${name}</a>${view.protected && html` <span class="muted">protected</span>`}</td>
<td>${commitLine(project, view)}</td>
<td>${view.release ? html`<a href="${project}/-/releases/${pathHref(name)}">${view.release.name ?? name}</a>` : html`<span class="muted">none</span>`}</td>`;
}

/** A release as both pages show it; in the list its title links to its own page. */
function releaseSummary(prefix: string, projectPath: string, view: ReleaseView, linked: boolean): Markup {
  const { release, tag } = view;
  const project = projectHref(prefix, projectPath);
  const title = release.name ?? release.tag_name;
  const self = `${project}/-/releases/${pathHref(release.tag_name)}`;
  const archiveName = `${projectPath.slice(projectPath.lastIndexOf('/') + 1)}-${release.tag_name.replaceAll('/', '-')}`;
  const links = view.links.map((link) => html`<li><a href="${link.filepath === null ? link.url : `${self}/downloads${link.filepath}`}" rel="nofollow">${link.name}</a> <span class="muted">${link.link_type}</span></li>`);
  const sources = ARCHIVE_FORMATS.map((format) => html`<li><a href="${project}/-/archive/${pathHref(release.tag_name)}/${encodeURIComponent(archiveName)}.${format}">Source code (${format})</a></li>`);
  const milestones = view.milestones.map(({ milestone, ownerPath }) => {
    const owner = milestone.project_id !== null ? projectHref(prefix, ownerPath) : `${prefix}/groups/${pathHref(ownerPath)}`;
    return html`<a href="${owner}/-/milestones/${milestone.iid}">${milestone.title}</a> `;
  });
  const heading = linked ? html`<h2><a href="${self}">${title}</a></h2>` : html`<h1>${title}</h1>`;
  return html`${heading}
<p class="muted"><a href="${project}/-/tags/${pathHref(release.tag_name)}">${release.tag_name}</a>${tag && html` · ${commitLine(project, { tag })}`} · released ${when(release.released_at ?? release.created_at)} by ${personName(view.author)}${milestones.length > 0 && html` · milestones: ${milestones}`}</p>
${markdownBlock(release.description, 'No release notes.')}
<details${linked ? null : html` open`}><summary>Assets (${links.length + sources.length})</summary><ul>${links}${sources}</ul></details>`;
}
