import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { Type } from '#deps/typebox';
import { requestSignal } from '../../http/request-lifetimes.ts';
import { Param } from '../../http/gitlab-params.ts';
import type { JobStatus } from '../../../pipeline/types.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

/** Largest trace PATCH body read (runner v13 sends at most 1 MiB, DefaultTracePatchLimit); 413 past it. */
export const TRACE_PATCH_BODY_LIMIT = 4 * 1024 * 1024;

const JobIdPath = Type.Object({ id: Param.integer({ minimum: 1, description: 'Job id' }) });

const UpdateJobBody = Type.Object({
  // Required, as grape's `requires :token`: without it the answer is 400 `token is missing`, not 403.
  token: Param.string({ description: 'The job token' }),
  state: Type.Optional(Param.string({ description: 'running (keep-alive), success or failed' })),
  failure_reason: Type.Optional(Param.string({ description: 'Why the job failed; unknown reasons become unknown_failure' })),
  exit_code: Type.Optional(Param.integer({ description: "The script's exit code" })),
  checksum: Type.Optional(Param.string({ description: 'crc32:%08x of the trace (deprecated copy of output.checksum)' })),
  output: Type.Optional(
    Type.Object({
      checksum: Type.Optional(Param.string({ description: 'crc32:%08x of the trace the runner recorded' })),
      bytesize: Type.Optional(Param.wideInteger({ minimum: 0, description: 'Size of that trace in bytes' })),
    }),
  ),
  trace: Type.Optional(Param.string({ description: 'The whole trace (runners of the 10.x era)' })),
  info: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'What the runner reports about itself' })),
});

const TraceQuery = Type.Object({
  token: Type.Optional(Param.string({ description: 'The job token (instead of the JOB-TOKEN header)' })),
  debug_trace: Type.Optional(Param.boolean({ description: 'Whether the runner runs the job with CI_DEBUG_TRACE (gitlab-runner 15+ sends it; not used)' })),
});

/**
 * Gantry's runner asks for its keep-alive `PUT state=running` to be held up to this many
 * seconds, until the job's status changes (a cancel reaches it at once, not at its next trace
 * update); the answer names the seconds granted. GitLab ignores the header and answers at
 * once, so the runner watches only where the answer carries it.
 */
export const WATCH_HEADER = 'x-gantry-job-watch';

function watchSecondsOf(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || !/^\d{1,4}$/.test(text.trim())) return undefined;
  const seconds = Number(text);
  return seconds > 0 ? seconds : undefined;
}

const tags = ['runner protocol'];

/** GitLab's `forbidden!(reason)`: `403 Forbidden`, with the reason when there is one. */
function forbidden(reply: FastifyReply, reason?: string): FastifyReply {
  return reply.code(403).send({ message: reason === undefined ? '403 Forbidden' : `403 Forbidden - ${reason}` });
}

/** `job_forbidden!`: the token was right but the job no longer runs; its status goes in `Job-Status` (how a cancel reaches the runner). */
function notRunning(reply: FastifyReply, status: JobStatus): FastifyReply {
  return forbidden(reply.header('Job-Status', status), 'Job is not running');
}

/**
 * The runner's side of a running job (reference/runner-protocol.md §4, §5): `PUT /jobs/:id`
 * (keep-alive and final state, with the job token in the body) and `PATCH /jobs/:id/trace`
 * (trace bytes at an offset, with the `JOB-TOKEN` header). Answers are exactly the ones a
 * gitlab-runner v13 acts on: 200/202/412/403 + Job-Status for updates, 202/416/403 for traces.
 */
export function runnerJobUpdatesRoutes({ jobUpdates, jobTraces, jobStatusWatch }: CoordinatorServices, _edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    // Held keep-alives end when the coordinator closes, before it waits for requests in flight.
    app.addHook('preClose', async () => jobStatusWatch.close());
    // Trace bytes are kept as sent (ANSI escapes, \r, any encoding): read them as bytes, bounded.
    app.removeContentTypeParser('text/plain');
    app.addContentTypeParser(['text/plain', 'application/octet-stream'], { parseAs: 'buffer', bodyLimit: TRACE_PATCH_BODY_LIMIT }, (_request, body, done) => done(null, body));
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.put('/jobs/:id', { schema: { summary: "Update a job's state (runner)", tags, params: JobIdPath, body: UpdateJobBody } }, async (request, reply) => {
      const body = request.body;
      const watchSeconds = watchSecondsOf(request.headers[WATCH_HEADER]);
      const watch = watchSeconds === undefined ? undefined : { seconds: watchSeconds, whenGone: () => requestSignal(reply) };
      const outcome = await jobUpdates.update(request.params.id, {
        token: body.token,
        state: body.state,
        failureReason: body.failure_reason,
        exitCode: body.exit_code,
        checksum: body.checksum,
        output: body.output,
        trace: body.trace,
      }, watch);
      switch (outcome.kind) {
        case 'forbidden':
          return forbidden(reply, outcome.reason);
        case 'not-running':
          return notRunning(reply, outcome.status);
        case 'invalid-state':
          return reply.code(400).send({ message: '400 Bad request - state is invalid' });
        case 'accepted':
          return reply.code(202).header('Job-Status', outcome.status).header('X-GitLab-Trace-Update-Interval', String(outcome.intervalSeconds)).type('text/plain').send('202');
        case 'trace-short':
          return reply.code(412).type('text/plain').send('412');
        case 'updated':
          // GitLab 16+ names the job's status on every answer: `canceling` asks the runner to cancel gracefully.
          if (outcome.watchedSeconds !== undefined) reply.header(WATCH_HEADER, String(outcome.watchedSeconds));
          return reply.code(200).header('Job-Status', outcome.status).type('text/plain').send('200');
      }
    });

    api.patch(
      '/jobs/:id/trace',
      { bodyLimit: TRACE_PATCH_BODY_LIMIT, schema: { summary: "Append to a job's trace (runner)", tags, params: JobIdPath, querystring: TraceQuery } },
      async (request, reply) => {
        // GitLab reads `params[:token] || env['HTTP_JOB_TOKEN']`: the parameter first.
        const header = request.headers['job-token'];
        const token = request.query.token ?? (typeof header === 'string' ? header : undefined);
        const range = request.headers['content-range'];
        const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        // Authentication comes first, as in GitLab: a canceled job answers 403 whatever the range.
        const start = typeof range === 'string' ? /^\s*(\d{1,15})-\d*\s*$/.exec(range)?.[1] : undefined;
        const outcome = await jobTraces.patch(request.params.id, token, start === undefined ? Number.NaN : Number(start), bytes);
        switch (outcome.kind) {
          case 'forbidden':
            return forbidden(reply, outcome.reason);
          case 'not-running':
            return notRunning(reply, outcome.status);
          case 'bad-range':
            return reply.code(400).send({ message: range === undefined ? '400 Missing header Content-Range' : '400 Bad request - Content-Range is invalid' });
          case 'range-mismatch':
            return reply.code(416).header('Range', `0-${outcome.size}`).send({ message: '416 Range Not Satisfiable' });
          case 'appended':
            return reply
              .code(202)
              .header('Job-Status', outcome.status)
              .header('Range', `0-${outcome.size}`)
              .header('X-GitLab-Trace-Update-Interval', String(outcome.intervalSeconds))
              .send();
        }
      },
    );
  };
}
