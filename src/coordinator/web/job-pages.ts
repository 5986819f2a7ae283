import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentDisposition } from '../http/blob-response.ts';
import type { JobArtifactsService } from '../services/ci/pipelines/job-artifacts.ts';
import type { JobsService } from '../services/ci/pipelines/jobs.ts';
import { GantryError } from '../../shared/errors.ts';
import { ARTIFACT_CHILDREN_SHOWN, artifactBrowsePage } from './artifact-browse.ts';
import { formField, formToken, pageRequest, sameToken, sendPage, sendRefusal, type PageRequest, type WebEdge } from './frame.ts';
import { errorPage } from './layout.ts';
import { jobPage } from './job-page.ts';
import { projectHref } from './pipeline-format.ts';

export type JobPagesServices = {
  jobs: Pick<JobsService, 'get' | 'readable' | 'build' | 'canUpdate' | 'cancel' | 'retry' | 'play'>;
  jobArtifacts: Pick<JobArtifactsService, 'traceFrom' | 'archive' | 'archiveDirectory' | 'archiveFile'>;
};

export type JobAction = 'retry' | 'cancel' | 'play';
const JOB_ACTIONS: ReadonlySet<string> = new Set<JobAction>(['retry', 'cancel', 'play']);

/** `/<project>/-/jobs/<id>` and what hangs under it (GitLab's paths); the artifact paths keep their rest (a member's path). */
const JOB_PATH = /^\/(.+?)\/-\/jobs\/(\d{1,12})(?:\/(raw|retry|cancel|play|artifacts\/download|artifacts\/browse|artifacts\/file)(?:\/(.*))?)?$/;
/** A ranged read answers at most this much; the page asks again from where it ended. */
export const RANGE_CHUNK_BYTES = 1024 * 1024;
const RAW_HEADERS = {
  'content-type': 'text/plain; charset=utf-8',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
  'cache-control': 'no-store',
  'accept-ranges': 'bytes',
} as const;

/** A single `bytes=N-` or `bytes=N-M` range; anything else reads the whole log (RFC 9110 lets a server ignore a Range). */
export function parseByteRange(header: string | undefined): { start: number; last: number | null } | null {
  const match = header === undefined ? null : /^bytes=(\d{1,15})-(\d{0,15})$/.exec(header.trim());
  if (!match) return null;
  const start = Number(match[1]);
  const last = match[2] === '' ? null : Number(match[2]);
  return last !== null && last < start ? null : { start, last };
}

export class JobPages {
  constructor(
    private readonly edge: WebEdge,
    private readonly services: JobPagesServices,
    private readonly scriptPath: () => string | null,
  ) {}

  /** Serves the job path `urlPath` names, or answers null when it names none. */
  serve(urlPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | null {
    const match = JOB_PATH.exec(urlPath);
    if (!match) return null;
    const [, projectPath, id, sub, rest] = match as unknown as [string, string, string, string | undefined, string | undefined];
    const jobId = Number(id);
    const post = request.method === 'POST';
    if (sub !== undefined && JOB_ACTIONS.has(sub) !== post) return null;
    if (!post && request.method !== 'GET' && request.method !== 'HEAD') return null;
    // Only the artifact paths have a rest: `browse` a directory (or none), `file` a member's path.
    if (rest !== undefined && sub !== 'artifacts/browse' && !(sub === 'artifacts/file' && rest !== '')) return null;
    if (sub === 'artifacts/file' && rest === undefined) return null;
    return this.handle(projectPath, jobId, sub, rest ?? '', request, reply);
  }

  private async handle(projectPath: string, jobId: number, sub: string | undefined, rest: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      if (sub === 'raw') return await this.raw(projectPath, jobId, page, request, reply);
      if (sub === 'artifacts/download') return await this.artifacts(projectPath, jobId, page, reply);
      if (sub === 'artifacts/browse') return await this.browse(projectPath, jobId, rest, page, reply);
      if (sub === 'artifacts/file') return await this.artifactFile(projectPath, jobId, rest, page, request, reply);
      if (sub !== undefined && JOB_ACTIONS.has(sub)) return await this.act(sub as JobAction, projectPath, jobId, page, request, reply);
      const view = await this.services.jobs.get(projectPath, page.actor, jobId);
      const mayUpdate = await this.services.jobs.canUpdate(view.target.project, page.actor, view.job);
      return sendPage(reply, 200, jobPage(page.frame, { view, mayUpdate, scriptPath: this.scriptPath(), now: Date.now() }));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  /** The log as text, streamed; a Range answers that part (206), or 416 past the end (an empty log: 200, empty), so the page reads only what is new. */
  private async raw(projectPath: string, jobId: number, page: PageRequest, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const range = parseByteRange(request.headers.range);
    const start = range?.start ?? 0;
    const wanted = range === null ? Number.MAX_SAFE_INTEGER : Math.min(RANGE_CHUNK_BYTES, (range.last ?? Number.MAX_SAFE_INTEGER) - start + 1);
    const trace = await this.services.jobArtifacts.traceFrom(projectPath, page.actor, jobId, start, wanted);
    void reply.headers(RAW_HEADERS).header('x-gantry-job-status', trace.status);
    if ((request.query as Record<string, unknown>).download === 'true') void reply.header('content-disposition', contentDisposition('attachment', `job-${jobId}.log`));
    // An empty log has no byte to range over: the whole of it (nothing) answers, as RFC 9110 lets a server ignore a
    // Range, so a job that printed nothing yet is no failed request in the browser.
    if (range !== null && trace.stream === null && trace.size > 0) {
      return reply.code(416).header('content-range', `bytes */${trace.size}`).send('');
    }
    if (range !== null && trace.size > 0) {
      void reply.code(206).header('content-range', `bytes ${trace.start}-${trace.end - 1}/${trace.size}`);
    }
    void reply.header('content-length', String(trace.end - trace.start));
    return reply.send(trace.stream ?? '');
  }

  private async artifacts(projectPath: string, jobId: number, page: PageRequest, reply: FastifyReply): Promise<FastifyReply> {
    const download = await this.services.jobArtifacts.archive(projectPath, page.actor, jobId);
    return reply
      .headers({ 'content-disposition': contentDisposition('attachment', download.fileName), 'content-length': String(download.size), 'x-content-type-options': 'nosniff' })
      .type('application/octet-stream')
      .send(download.stream);
  }

  /** A directory of the archive (its direct children), from the member index kept at upload. */
  private async browse(projectPath: string, jobId: number, rest: string, page: PageRequest, reply: FastifyReply): Promise<FastifyReply> {
    const directory = rest === '' ? '' : rest.endsWith('/') ? rest : `${rest}/`;
    const view = await this.services.jobs.get(projectPath, page.actor, jobId);
    const listing = await this.services.jobArtifacts.archiveDirectory(projectPath, page.actor, jobId, directory, ARTIFACT_CHILDREN_SHOWN);
    if (directory !== '' && !listing.exists) throw new GantryError('GANTRY_E_ARTIFACT_NOT_FOUND');
    return sendPage(reply, 200, artifactBrowsePage(page.frame, view, directory, listing));
  }

  /** One member of the archive, inflated as it streams, as a download (never shown inline: it is the job's content). */
  private async artifactFile(projectPath: string, jobId: number, path: string, page: PageRequest, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const aborted = new AbortController();
    request.raw.once('close', () => aborted.abort());
    const file = await this.services.jobArtifacts.archiveFile(projectPath, page.actor, jobId, path, aborted.signal);
    return reply
      .headers({ 'content-disposition': contentDisposition('attachment', file.fileName), 'content-length': String(file.size), 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; sandbox" })
      .type('application/octet-stream')
      .send(file.stream);
  }

  /**
   * The play, retry and cancel buttons (of this page and of the pipeline page's jobs): the same
   * services as the API, behind the session's CSRF token; back to the job (a retry: the new one),
   * or to its pipeline when the form says `return_to=pipeline`.
   */
  private async act(action: JobAction, projectPath: string, jobId: number, page: PageRequest, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    if (page.session === undefined) return reply.redirect(`${page.frame.prefix}/users/sign_in?redirect_to=${encodeURIComponent(`${page.frame.prefix}/${projectPath}/-/jobs/${jobId}`)}`, 302);
    if (!sameToken(page.session.csrfToken, formToken(request))) return sendPage(reply, 422, errorPage(page.frame, 400, 'The form expired: reload the page and try again.'));
    const { jobs } = this.services;
    const view = action === 'retry' ? await jobs.retry(projectPath, page.actor, jobId) : action === 'cancel' ? await jobs.cancel(projectPath, page.actor, jobId) : await jobs.play(projectPath, page.actor, jobId);
    const project = projectHref(page.frame.prefix, view.target.fullPath);
    const backToPipeline = formField(request, 'return_to') === 'pipeline';
    return reply.redirect(backToPipeline ? `${project}/-/pipelines/${view.job.pipeline_id}` : `${project}/-/jobs/${view.job.id}`, 303);
  }
}
