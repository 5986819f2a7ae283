import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { Type } from '#deps/typebox';
import type { JobStatus } from '../../../pipeline/index.ts';
import { requireActor } from '../../http/auth.ts';
import { contentDisposition } from '../../http/blob-response.ts';
import type { ErrorAnswerOverrides } from '../../http/error-responses.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { requestSignal } from '../../http/request-lifetimes.ts';
import { serializePlayedBridge } from '../../http/serializers/ci/bridges.ts';
import { serializeJob } from '../../http/serializers/ci/jobs.ts';
import type { JobDownload } from '../../services/ci/pipelines/job-artifacts.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { PROJECT_ID, ProjectPath } from '../repository/params.ts';

/** `scope` values: every job status (CommitStatus::AVAILABLE_STATUSES of Gantry's set). */
const SCOPES = ['created', 'waiting_for_resource', 'pending', 'running', 'canceling', 'failed', 'success', 'canceled', 'skipped', 'manual', 'scheduled'] as const satisfies readonly JobStatus[];

const JOB_ID = { job_id: Param.integer({ minimum: 1, description: 'Job id' }) };
const JobPath = Type.Object({ ...PROJECT_ID, ...JOB_ID });
const ArtifactPath = Type.Object({ ...PROJECT_ID, ...JOB_ID, '*': Param.string({ description: 'Path of a file inside the artifacts archive' }) });
const REF_NAME = { ref_name: Param.string({ description: 'Branch or tag name (URL-encoded)' }) };
const RefPath = Type.Object({ ...PROJECT_ID, ...REF_NAME });
const RefArtifactPath = Type.Object({ ...PROJECT_ID, ...REF_NAME, '*': Param.string({ description: 'Path of a file inside the artifacts archive' }) });

const ListQuery = Type.Object({
  scope: Type.Optional(Type.Array(Param.oneOf(SCOPES), { description: 'Only jobs in these statuses (a string or an array)' })),
  ...PAGINATION,
});
const RefDownloadQuery = Type.Object({ job: Param.string({ minLength: 1, description: 'Name of the job' }) });

const CurrentJobQuery = Type.Object({ job_token: Type.Optional(Param.string({ description: 'The job token, when not in the JOB-TOKEN header' })) });

const CancelQuery = Type.Object({
  force: Type.Optional(Param.boolean({ description: 'End a canceling job at once, without waiting for its runner (GitLab 17)' })),
});

const tags = ['jobs'];
/** Artifacts downloads take a CI job token (GitLab's `job_token_allowed`). */
const JOB_TOKEN = { jobTokenAllowed: true };

/** `/projects/:id/jobs[...]`: list, show, cancel, retry, play, erase, keep artifacts, trace and artifacts downloads. */
export function jobsRoutes({ jobs, jobArtifacts }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { externalUrl } = edge;
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/jobs';

    api.get(base, { schema: { summary: "List a project's jobs", tags, params: ProjectPath, querystring: ListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      // GitLab's Jobs API authenticates every caller (`before { authenticate! }`), public projects' too.
      const { items, total } = await jobs.list(request.params.id, requireActor(request), request.query.scope, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map((view) => serializeJob(view, externalUrl));
    });

    api.get('/job', { schema: { summary: "The running job of a job token (JOB-TOKEN header or job_token)", tags, querystring: CurrentJobQuery } }, async (request) => {
      const header = request.headers['job-token'];
      const token = request.query.job_token ?? (typeof header === 'string' ? header : undefined);
      return serializeJob(await jobs.current(token), externalUrl);
    });

    api.get(`${base}/:job_id`, { schema: { summary: 'Get a job', tags, params: JobPath } }, async (request) => {
      return serializeJob(await jobs.get(request.params.id, requireActor(request), request.params.job_id), externalUrl);
    });

    // GitLab answers cancel, retry and erase with 201, play and keep with 200.
    api.post(`${base}/:job_id/cancel`, { schema: { summary: 'Cancel a job', tags, params: JobPath, querystring: CancelQuery } }, async (request, reply) => {
      return reply.code(201).send(serializeJob(await jobs.cancel(request.params.id, request.actor, request.params.job_id, request.query.force === true), externalUrl));
    });

    // Retry and play take trigger jobs (bridges) too; a retried bridge answers as a job, a played one as a bridge (GitLab's entities).
    api.post(`${base}/:job_id/retry`, { schema: { summary: 'Retry a job or a trigger job (answers the new job)', tags, params: JobPath } }, async (request, reply) => {
      return reply.code(201).send(serializeJob(await jobs.retry(request.params.id, request.actor, request.params.job_id), externalUrl));
    });

    api.post(`${base}/:job_id/play`, { schema: { summary: 'Run a manual or scheduled job, or a manual trigger job', tags, params: JobPath } }, async (request) => {
      const view = await jobs.play(request.params.id, request.actor, request.params.job_id);
      return view.job.type === 'bridge' ? serializePlayedBridge(view, externalUrl) : serializeJob(view, externalUrl);
    });

    api.post(`${base}/:job_id/erase`, { schema: { summary: "Erase a job's trace and artifacts", tags, params: JobPath } }, async (request, reply) => {
      const view = await jobs.erase(request.params.id, request.actor, request.params.job_id);
      return reply.code(201).send({ ...serializeJob(view, externalUrl), download_url: null });
    });

    api.post(`${base}/:job_id/artifacts/keep`, { schema: { summary: "Keep a job's artifacts from expiring", tags, params: JobPath } }, async (request) => {
      const view = await jobs.keepArtifacts(request.params.id, request.actor, request.params.job_id);
      return { ...serializeJob(view, externalUrl), download_url: null };
    });

    api.get(`${base}/:job_id/trace`, { schema: { summary: "Get a job's trace (log)", tags, params: JobPath } }, async (request, reply) => {
      const trace = await jobArtifacts.trace(request.params.id, requireActor(request), request.params.job_id);
      reply.header('Content-Disposition', `infile; filename="${trace.jobId}.log"`);
      reply.header('Content-Length', String(trace.size));
      return reply.type('text/plain; charset=utf-8').send(trace.stream);
    });

    api.get(`${base}/:job_id/artifacts`, { schema: { summary: "Download a job's artifacts archive", tags, params: JobPath }, config: JOB_TOKEN }, async (request, reply) => {
      return sendDownload(reply, await jobArtifacts.archive(request.params.id, request.actor, request.params.job_id));
    });

    api.get(`${base}/:job_id/artifacts/*`, { schema: { summary: "Download one file of a job's artifacts archive", tags, params: ArtifactPath }, config: JOB_TOKEN }, async (request, reply) => {
      const { id, job_id: jobId, '*': path } = request.params;
      return sendDownload(reply, await jobArtifacts.archiveFile(id, request.actor, jobId, path, requestSignal(reply)));
    });

    api.get(`${base}/artifacts/:ref_name/raw/*`, { schema: { summary: "One file of the artifacts of the latest successful job of a ref", tags, params: RefArtifactPath, querystring: RefDownloadQuery }, config: { ...JOB_TOKEN, errorAnswers: NO_JOB_OF_REF } }, async (request, reply) => {
      const { id, ref_name: ref, '*': path } = request.params;
      return sendDownload(reply, await jobArtifacts.archiveFileOfRef(id, request.actor, ref, request.query.job, path, requestSignal(reply)));
    });

    api.get(`${base}/artifacts/:ref_name/download`, { schema: { summary: 'Download the artifacts of the latest successful job of a ref', tags, params: RefPath, querystring: RefDownloadQuery }, config: { ...JOB_TOKEN, errorAnswers: NO_JOB_OF_REF } }, async (request, reply) => {
      return sendDownload(reply, await jobArtifacts.archiveOfRef(request.params.id, request.actor, request.params.ref_name, request.query.job));
    });
  };
}


/** No successful job of that name on the ref: GitLab's `latest_successful_build_for_ref!` raises, answered as `404 Not found`. */
const NO_JOB_OF_REF: ErrorAnswerOverrides = { GANTRY_E_JOB_NOT_FOUND: { status: 404, body: () => ({ message: '404 Not found' }) } };

/** Streams a file as an attachment; its bytes are never held whole. */
export function sendDownload(reply: FastifyReply, download: JobDownload): FastifyReply {
  reply.header('Content-Disposition', contentDisposition('attachment', download.fileName));
  reply.header('Content-Length', String(download.size));
  reply.header('Content-Transfer-Encoding', 'binary');
  return reply.type('application/octet-stream').send(download.stream);
}
