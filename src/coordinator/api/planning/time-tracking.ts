import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeTimeStats } from '../../http/serializers/planning/time-stats.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { noteableOf } from './notes.ts';

const PROJECT = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const IssuePath = Type.Object({ ...PROJECT, issue_iid: Param.integer({ description: 'The issue iid' }) });
const MergeRequestPath = Type.Object({ ...PROJECT, merge_request_iid: Param.integer({ description: 'The merge request iid' }) });
const DURATION = Param.string({ minLength: 1, description: 'GitLab duration: `1mo 2w 3d 4h 5m 6s`, `1h30m`, `3` (hours); 8-hour days, 5-day weeks, 4-week months' });
const EstimateBody = Type.Object({ duration: DURATION });
const SpentBody = Type.Object({
  duration: DURATION,
  summary: Type.Optional(Param.string({ description: 'What the time was spent on (255 characters at most)' })),
});

/** Time tracking on issues and merge requests: estimate, time spent and `time_stats` (GitLab's TimeStats entity). */
export function timeTrackingRoutes({ timeTracking }: CoordinatorServices, _edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    for (const onMergeRequest of [false, true]) {
      const base = onMergeRequest ? '/projects/:id/merge_requests/:merge_request_iid' : '/projects/:id/issues/:issue_iid';
      const tags = [onMergeRequest ? 'merge_requests' : 'issues'];
      const [a, the, who] = onMergeRequest ? ['a merge request', "a merge request's", 'Developers and up'] : ['an issue', "an issue's", 'Reporters and up'];
      const params = onMergeRequest ? MergeRequestPath : IssuePath;

      api.post(`${base}/time_estimate`, { schema: { summary: `Set ${the} time estimate (${who})`, tags, params, body: EstimateBody } }, async (request, reply) => {
        const tracked = await timeTracking.setEstimate(request.params.id, requireActor(request), noteableOf(request.params), request.body.duration);
        return reply.code(200).send(serializeTimeStats(tracked));
      });

      api.post(`${base}/reset_time_estimate`, { schema: { summary: `Remove ${the} time estimate (${who})`, tags, params } }, async (request, reply) => {
        const tracked = await timeTracking.resetEstimate(request.params.id, requireActor(request), noteableOf(request.params));
        return reply.code(200).send(serializeTimeStats(tracked));
      });

      api.post(`${base}/add_spent_time`, { schema: { summary: `Log time spent on ${a}, or subtract it (\`-1h\`; ${who})`, tags, params, body: SpentBody } }, async (request, reply) => {
        const { duration, summary } = request.body;
        const tracked = await timeTracking.addSpent(request.params.id, requireActor(request), noteableOf(request.params), duration, summary);
        return reply.code(201).send(serializeTimeStats(tracked));
      });

      api.post(`${base}/reset_spent_time`, { schema: { summary: `Remove ${the} time spent (${who})`, tags, params } }, async (request, reply) => {
        const tracked = await timeTracking.resetSpent(request.params.id, requireActor(request), noteableOf(request.params));
        return reply.code(200).send(serializeTimeStats(tracked));
      });

      api.get(`${base}/time_stats`, { schema: { summary: `${the[0]!.toUpperCase()}${the.slice(1)} time estimate and time spent`, tags, params } }, async (request) => {
        return serializeTimeStats(await timeTracking.stats(request.params.id, requireActor(request), noteableOf(request.params)));
      });
    }
  };
}
