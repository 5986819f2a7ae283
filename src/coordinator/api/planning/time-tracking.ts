import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeTimeStats } from '../../http/serializers/planning/time-stats.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const tags = ['issues'];
const IssuePath = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }), issue_iid: Param.integer({ description: 'The issue iid' }) });
const DURATION = Param.string({ minLength: 1, description: 'GitLab duration: `1mo 2w 3d 4h 5m 6s`, `1h30m`, `3` (hours); 8-hour days, 5-day weeks, 4-week months' });
const EstimateBody = Type.Object({ duration: DURATION });
const SpentBody = Type.Object({
  duration: DURATION,
  summary: Type.Optional(Param.string({ description: 'What the time was spent on (255 characters at most)' })),
});

/** Time tracking on issues: estimate, time spent and `time_stats` (GitLab's TimeStats entity). */
export function timeTrackingRoutes({ timeTracking }: CoordinatorServices, _edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/issues/:issue_iid';

    api.post(`${base}/time_estimate`, { schema: { summary: "Set an issue's time estimate (Reporters and up)", tags, params: IssuePath, body: EstimateBody } }, async (request, reply) => {
      const issue = await timeTracking.setEstimate(request.params.id, requireActor(request), request.params.issue_iid, request.body.duration);
      return reply.code(200).send(serializeTimeStats(issue));
    });

    api.post(`${base}/reset_time_estimate`, { schema: { summary: "Remove an issue's time estimate (Reporters and up)", tags, params: IssuePath } }, async (request, reply) => {
      const issue = await timeTracking.resetEstimate(request.params.id, requireActor(request), request.params.issue_iid);
      return reply.code(200).send(serializeTimeStats(issue));
    });

    api.post(`${base}/add_spent_time`, { schema: { summary: 'Log time spent on an issue, or subtract it (`-1h`; Reporters and up)', tags, params: IssuePath, body: SpentBody } }, async (request, reply) => {
      const { duration, summary } = request.body;
      const issue = await timeTracking.addSpent(request.params.id, requireActor(request), request.params.issue_iid, duration, summary);
      return reply.code(201).send(serializeTimeStats(issue));
    });

    api.post(`${base}/reset_spent_time`, { schema: { summary: "Remove an issue's time spent (Reporters and up)", tags, params: IssuePath } }, async (request, reply) => {
      const issue = await timeTracking.resetSpent(request.params.id, requireActor(request), request.params.issue_iid);
      return reply.code(200).send(serializeTimeStats(issue));
    });

    api.get(`${base}/time_stats`, { schema: { summary: "An issue's time estimate and time spent", tags, params: IssuePath } }, async (request) => {
      return serializeTimeStats(await timeTracking.stats(request.params.id, requireActor(request), request.params.issue_iid));
    });
  };
}
