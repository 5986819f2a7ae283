import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UsersStore } from '../../storage/types.ts';
import type { WebSessionsStore } from '../../storage/types-web-sessions.ts';
import type { RequestThrottles } from '../http/throttle.ts';
import { JobListPages, type JobListPagesServices } from './job-list-page.ts';
import { JobPages, type JobPagesServices } from './job-pages.ts';
import { LOG_SCRIPT_HEADERS, loadLogScript } from './log-script.ts';
import { LOG_STYLESHEET } from './log-style.ts';
import type { ProjectListing } from '../services/namespaces/projects-listing.ts';
import { registerAdminPages, type AdminPagesServices } from './admin-pages.ts';
import { BadgePages } from './badges.ts';
import { registerExplore } from './explore.ts';
import { registerGroupPages, type GroupPagesServices } from './group-pages.ts';
import { PAGE_ROUTE, type WebEdge } from './frame.ts';
import { HistoryPages, type HistoryPagesServices } from './history-pages.ts';
import { IssuePages, type IssuePagesServices } from './issue-pages.ts';
import { MergeRequestPages, type MergeRequestPagesServices } from './merge-request-pages.ts';
import { MilestonePages, type MilestonePagesServices } from './milestone-pages.ts';
import { PipelinePages, type PipelinePagesServices } from './pipeline-pages.ts';
import { ProjectHomePages, type ProjectPagesServices } from './project-pages.ts';
import { classifyProjectPage } from './project-paths.ts';
import { ReleasePages, type ReleasePagesServices } from './release-pages.ts';
import { TreePages } from './tree-pages.ts';
import { UserPages, type UserPagesServices } from './user-pages.ts';
import { STYLESHEET_PATH } from './layout.ts';
import { WebSessions } from './sessions.ts';
import { registerSignIn } from './sign-in.ts';
import { STYLESHEET } from './style.ts';

export interface WebPagesDeps {
  externalUrl: string;
  sessions: WebSessionsStore;
  users: Pick<UsersStore, 'findById' | 'findByUsername' | 'findByEmail'>;
  throttles: RequestThrottles;
  services: { projectListing: Pick<ProjectListing, 'list' | 'listForUser'>; jobs: JobPagesServices['jobs'] & JobListPagesServices['jobs']; pipelines: PipelinePagesServices['pipelines'] & ProjectPagesServices['pipelines']; commits: PipelinePagesServices['commits'] & ProjectPagesServices['commits'] } & Omit<PipelinePagesServices, 'pipelines'> & Omit<ProjectPagesServices, 'pipelines' | 'commits'> & AdminPagesServices & GroupPagesServices & JobPagesServices & IssuePagesServices & MergeRequestPagesServices & Omit<UserPagesServices, 'projectListing'> & ReleasePagesServices & MilestonePagesServices & HistoryPagesServices;
}

/** The pages under a project's path, which git over HTTP's catch-all hands on (see {@link registerWebPages}). */
export interface ProjectPages {
  /** Serves the page at `urlPath` (decoded, no query), or answers null when no page lives there. */
  serve(urlPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | null;
}

const BADGE_PATH = /^\/(.+?)\/badges\/(.+)\/(pipeline|coverage)\.svg$/;

/**
 * Mounts the web pages: the fixed paths as routes of their own, and returns the pages under
 * a project's path (`/group/sub/project/...`, any depth), which only the git catch-all can
 * reach without shadowing it.
 */
export function registerWebPages(app: FastifyInstance, deps: WebPagesDeps): ProjectPages {
  const edge: WebEdge = { externalUrl: deps.externalUrl, sessions: new WebSessions({ sessions: deps.sessions, users: deps.users }) };
  app.get(STYLESHEET_PATH, PAGE_ROUTE, async (_request, reply) => reply.headers({ 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=3600' }).send(STYLESHEET + LOG_STYLESHEET));
  registerSignIn(app, edge, deps.throttles);
  registerExplore(app, edge, deps.services.projectListing);
  const milestonePages = new MilestonePages(edge, deps.services);
  registerGroupPages(app, edge, deps.services, milestonePages);
  registerAdminPages(app, edge, deps.services);
  const badges = new BadgePages(edge, deps.services.pipelines);
  const pipelinePages = new PipelinePages(edge, deps.services);
  const homePages = new ProjectHomePages(edge, deps.services);
  const treePages = new TreePages(edge, deps.services);
  const logScript = loadLogScript();
  if (logScript) app.get(logScript.path, PAGE_ROUTE, async (_request, reply) => reply.headers(LOG_SCRIPT_HEADERS).send(logScript.body));
  const jobPages = new JobPages(edge, deps.services, () => logScript?.path ?? null);
  const jobListPages = new JobListPages(edge, deps.services);
  const issuePages = new IssuePages(edge, deps.services);
  const mergeRequestPages = new MergeRequestPages(edge, deps.services);
  const userPages = new UserPages(edge, deps.services);
  const releasePages = new ReleasePages(edge, deps.services);
  const historyPages = new HistoryPages(edge, deps.services);
  return {
    serve(urlPath, request, reply) {
      const jobPage = jobPages.serve(urlPath, request, reply);
      if (jobPage) return jobPage;
      const page = classifyProjectPage(request.method, urlPath);
      if (page?.kind === 'pipelines') return pipelinePages.list(page.project, request, reply);
      if (page?.kind === 'jobs') return jobListPages.list(page.project, request, reply);
      if (page?.kind === 'pipeline') return pipelinePages.show(page.project, page.pipelineId, request, reply);
      if (page?.kind === 'pipeline-action') return pipelinePages.act(page.project, page.pipelineId, page.action, request, reply);
      if (page?.kind === 'namespace') return userPages.show(page.path, request, reply);
      if (page?.kind === 'project') return homePages.project(page.project, request, reply);
      if (page?.kind === 'commit') return homePages.commit(page.project, page.sha, request, reply);
      if (page?.kind === 'tree' || page?.kind === 'blob' || page?.kind === 'raw') return treePages[page.kind](page.project, page.refAndPath, request, reply);
      if (page?.kind === 'merge-requests') return mergeRequestPages.list(page.project, request, reply);
      if (page?.kind === 'merge-request') return mergeRequestPages.show(page.project, page.iid, page.tab, request, reply);
      if (page?.kind === 'issues') return issuePages.list(page.project, request, reply);
      if (page?.kind === 'issue') return issuePages.show(page.project, page.iid, request, reply);
      if (page?.kind === 'releases' || page?.kind === 'tags') return releasePages[page.kind](page.project, request, reply);
      if (page?.kind === 'release' || page?.kind === 'tag') return releasePages[page.kind](page.project, page.tagName, request, reply);
      if (page?.kind === 'milestones') return milestonePages.list({ kind: 'project', ref: page.project }, request, reply);
      if (page?.kind === 'milestone') return milestonePages.show({ kind: 'project', ref: page.project }, page.iid, request, reply);
      if (page?.kind === 'commits') return historyPages.commits(page.project, page.refAndPath, request, reply);
      if (page?.kind === 'compare') return historyPages.compare(page.project, page.spec, request, reply);
      if (page?.kind === 'branches') return historyPages.branches(page.project, request, reply);
      if (request.method !== 'GET' && request.method !== 'HEAD') return null;
      const badge = BADGE_PATH.exec(urlPath);
      if (badge) return badges.serve(badge[3] as 'pipeline' | 'coverage', badge[1]!, badge[2]!, request, reply);
      return null;
    },
  };
}
