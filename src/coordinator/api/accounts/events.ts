import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '#deps/typebox';
import { EVENT_ACTIONS, EVENT_TARGET_TYPES } from '../../../storage/types-events.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeEvent } from '../../http/serializers/accounts/events.ts';
import type { EventFeedQuery, EventPage } from '../../services/events/feeds.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { ProjectId } from '../namespaces/projects-schemas.ts';
import { UserIdOrUsername } from './users.ts';

const FeedQuery = Type.Object({
  action: Type.Optional(Param.oneOf([...EVENT_ACTIONS], { description: 'Only events of this action' })),
  target_type: Type.Optional(Param.oneOf([...EVENT_TARGET_TYPES], { description: 'Only events on this kind of target' })),
  before: Type.Optional(Param.date({ description: 'Only events created before this day' })),
  after: Type.Optional(Param.date({ description: 'Only events created after this day' })),
  sort: Type.Optional(Param.oneOf(['asc', 'desc'], { description: 'By creation; desc by default' })),
  ...PAGINATION,
});
const ActivitiesQuery = Type.Object({ from: Type.Optional(Param.date({ description: 'Users active on or after this day (default: six months ago)' })), ...PAGINATION });

const tags = ['events'];

function feedQuery(query: Static<typeof FeedQuery>): EventFeedQuery {
  return { action: query.action, targetType: query.target_type, before: query.before, after: query.after, sort: query.sort ?? 'desc' };
}

/** Activity events (`/events`, `/users/:id/events`, `/projects/:id/events`) and `/user/activities`. */
export function eventsRoutes({ eventFeeds, userActivity }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const answer = (request: FastifyRequest, reply: FastifyReply, page: ReturnType<typeof pageOf>, events: EventPage) => {
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total: events.total });
      return events.items.map((event) => serializeEvent(event, events.authors, edge.externalUrl));
    };

    api.get('/events', { schema: { summary: "The caller's events, in projects they can read", tags, querystring: FeedQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      return answer(request, reply, page, await eventFeeds.own(requireActor(request), feedQuery(request.query), { offset: page.offset, limit: page.perPage }));
    });

    api.get('/users/:id/events', { schema: { summary: "A user's events, in projects the caller can read", tags, params: UserIdOrUsername, querystring: FeedQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      return answer(request, reply, page, await eventFeeds.ofUser(request.actor, request.params.id, feedQuery(request.query), { offset: page.offset, limit: page.perPage }));
    });

    api.get('/projects/:id/events', { schema: { summary: "A project's events", tags, params: ProjectId, querystring: FeedQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      return answer(request, reply, page, await eventFeeds.ofProject(request.actor, request.params.id, feedQuery(request.query), { offset: page.offset, limit: page.perPage }));
    });

    api.get('/user/activities', { schema: { summary: "Users' last activity days (administrators)", tags: ['users'], querystring: ActivitiesQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await userActivity.since(requireActor(request), request.query.from, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map((item) => ({ username: item.username, last_activity_on: item.last_activity_on, last_activity_at: item.last_activity_on }));
    });
  };
}

