import type { FastifyReply, FastifyRequest } from 'fastify';
import { isGantryError } from '../../shared/errors.ts';
import type { GitCommit, GitFileDiff } from '../../storage/git/types.ts';
import type { BranchesService } from '../services/repository/branches.ts';
import type { BrowsingService } from '../services/repository/browsing.ts';
import type { CommitsService } from '../services/repository/commits.ts';
import { fileDiff } from './diff-view.ts';
import { pageRequest, sendPage, sendRefusal, type WebEdge } from './frame.ts';
import { html, type Markup } from './html.ts';
import { errorPage, layout } from './layout.ts';
import { MAX_PAGE, pastLastPage, requestedPage } from './paging.ts';
import { pathHref, projectHref } from './pipeline-format.ts';
import { pager } from './planning-format.ts';
import { withLongestRef } from './tree-pages.ts';

export interface HistoryPagesServices {
  commits: Pick<CommitsService, 'list' | 'get'>;
  browsing: Pick<BrowsingService, 'compare'>;
  branches: Pick<BranchesService, 'list'>;
}

/** Commits or branches one page lists (GitLab's commit list pages by 40, its branch list by 20). */
const COMMITS_PER_PAGE = 40;
const BRANCHES_PER_PAGE = 20;
/** A comparison's commits and files the page shows; the rest is counted, not shown. */
const COMPARE_COMMITS_SHOWN = 100;
const COMPARE_FILES_SHOWN = 100;
/** `from...to` (from their merge base, GitLab's default) or `from..to` (straight). */
const COMPARE_SPEC = /^(.+?)(\.{2,3})(.+)$/;

/**
 * `/-/commits/:ref[/*path]` (a ref's history, as the chat integrations link it), `/-/compare/:from...:to`
 * (what push e-mails link) and `/-/branches`, read-only, through the commits, browsing and
 * branches services with the viewer as the actor.
 */
export class HistoryPages {
  constructor(
    private readonly edge: WebEdge,
    private readonly services: HistoryPagesServices,
  ) {}

  async commits(projectPath: string, refAndPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    const number = requestedPage(request.query);
    if (number > MAX_PAGE) return sendPage(reply, 400, pastLastPage(page.frame, number));
    try {
      // The longest leading part that names a commit is the ref, the rest a path, as on tree pages.
      const ref = await withLongestRef(refAndPath, async (candidate) => {
        try {
          await this.services.commits.get(projectPath, page.actor, candidate, false);
          return candidate;
        } catch (error) {
          if (isGantryError(error) && error.code === 'GANTRY_E_COMMIT_NOT_FOUND') return null;
          throw error;
        }
      });
      const path = refAndPath.slice(ref.length).replace(/^\/+|\/+$/g, '');
      const query = { refName: ref, all: false, ...(path !== '' && { path }) };
      const { items, total } = await this.services.commits.list(projectPath, page.actor, query, { offset: (number - 1) * COMMITS_PER_PAGE, limit: COMMITS_PER_PAGE }, false);
      const project = projectHref(page.frame.prefix, projectPath);
      const body = html`<p><a href="${project}">${projectPath}</a></p>
<h1>Commits on ${ref}${path !== '' && html` <span class="muted">in ${path}</span>`}</h1>
<p><a href="${project}/-/tree/${pathHref(ref)}${path !== '' ? `/${pathHref(path)}` : ''}">Browse files</a></p>
${commitTable(project, items.map(({ commit }) => commit))}
${pager(`${project}/-/commits/${pathHref(refAndPath)}`, {}, number, total, COMMITS_PER_PAGE)}`;
      return sendPage(reply, 200, layout(page.frame, `Commits · ${ref} · ${projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  async compare(projectPath: string, spec: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const parts = COMPARE_SPEC.exec(spec);
      if (!parts) return sendPage(reply, 404, errorPage(page.frame, 404, 'A comparison is written from...to.'));
      const [, from, dots, to] = parts as unknown as [string, string, string, string];
      const { comparison } = await this.services.browsing.compare(projectPath, page.actor, { from, to, straight: dots === '..' });
      const files: GitFileDiff[] = [];
      let moreFiles = false;
      try {
        for await (const file of comparison.diffs) {
          if (files.length === COMPARE_FILES_SHOWN) {
            moreFiles = true;
            break;
          }
          files.push(file);
        }
      } finally {
        comparison.diffs.close();
      }
      const project = projectHref(page.frame.prefix, projectPath);
      const commits = comparison.commits;
      const body = html`<p><a href="${project}">${projectPath}</a></p>
<h1>Compare <span class="sha">${from}</span> ${dots} <span class="sha">${to}</span></h1>
${comparison.sameRef || (commits.length === 0 && files.length === 0) ? html`<p>There isn't anything to compare: ${from} and ${to} are the same.</p>` : html`
<h2>Commits (${commits.length})</h2>
${commitTable(project, [...commits].reverse().slice(0, COMPARE_COMMITS_SHOWN))}
${commits.length > COMPARE_COMMITS_SHOWN && html`<p class="muted">The newest ${COMPARE_COMMITS_SHOWN} of ${commits.length} commits are shown.</p>`}
<h2>Changes</h2>
${files.length === 0 ? html`<p>No files changed.</p>` : files.map((file, index) => fileDiff(file, index))}
${(moreFiles || comparison.diffs.overflow) && html`<p class="notice">The diff stops here: the page shows ${files.length} files at most, and GitLab's diff limits apply.</p>`}`}`;
      return sendPage(reply, 200, layout(page.frame, `Compare ${from}${dots}${to} · ${projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  async branches(projectPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    const number = requestedPage(request.query);
    if (number > MAX_PAGE) return sendPage(reply, 400, pastLastPage(page.frame, number));
    try {
      const { items, total } = await this.services.branches.list(projectPath, page.actor, undefined, { offset: (number - 1) * BRANCHES_PER_PAGE, limit: BRANCHES_PER_PAGE });
      const project = projectHref(page.frame.prefix, projectPath);
      const rows = items.map(({ branch, isDefault, protection, merged }) => html`<tr>
<td><a href="${project}/-/tree/${pathHref(branch.name)}">${branch.name}</a>${isDefault && html` <span class="muted">default</span>`}${protection && html` <span class="muted">protected</span>`}${merged && !isDefault && html` <span class="muted">merged</span>`}</td>
<td>${commitLink(project, branch.commit)}</td>
<td><a href="${project}/-/commits/${pathHref(branch.name)}">History</a></td></tr>`);
      const body = html`<p><a href="${project}">${projectPath}</a></p>
<h1>Branches</h1>
${items.length === 0 ? html`<p>No branches to show.</p>` : html`<table><thead><tr><th scope="col">Branch</th><th scope="col">Last commit</th><th scope="col">Commits</th></tr></thead><tbody>${rows}</tbody></table>`}
${pager(`${project}/-/branches`, {}, number, total, BRANCHES_PER_PAGE)}`;
      return sendPage(reply, 200, layout(page.frame, `Branches · ${projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }
}

function commitLink(project: string, commit: GitCommit): Markup {
  return html`<a class="sha" href="${project}/-/commit/${commit.id}">${commit.id.slice(0, 8)}</a> ${commit.title}`;
}

function commitTable(project: string, commits: readonly GitCommit[]): Markup {
  if (commits.length === 0) return html`<p>No commits to show.</p>`;
  const rows = commits.map((commit) => html`<tr><td>${commitLink(project, commit)}</td><td>${commit.author.name}</td><td><time datetime="${commit.committer.date}">${commit.committer.date.slice(0, 16).replace('T', ' ')}</time></td></tr>`);
  return html`<table><thead><tr><th scope="col">Commit</th><th scope="col">Author</th><th scope="col">Committed</th></tr></thead><tbody>${rows}</tbody></table>`;
}
