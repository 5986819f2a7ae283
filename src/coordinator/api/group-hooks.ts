import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../http/auth.ts';
import { Param } from '../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../http/pagination.ts';
import { serializeGroupHook, serializeHookLog } from '../http/serializers/hooks.ts';
import type { HookParams } from '../services/hooks/hook-settings.ts';
import { HOOK_TEST_TRIGGERS } from '../services/hooks/hook-test.ts';
import type { CoordinatorServices, EdgeConfig } from '../wiring.ts';
import { EventsQuery, hookBody } from './hooks.ts';

const GROUP_ID = { id: Param.string({ description: 'Group id or URL-encoded full path' }) };
const GroupPath = Type.Object(GROUP_ID);
const HookPath = Type.Object({ ...GROUP_ID, hook_id: Param.integer({ description: 'The hook id' }) });
const TestPath = Type.Object({ ...GROUP_ID, hook_id: Param.integer({ description: 'The hook id' }), trigger: Param.oneOf(HOOK_TEST_TRIGGERS, { description: 'The event to send a sample of' }) });
const PageQuery = Type.Object(PAGINATION);
const CreateBody = hookBody(true, true);
const UpdateBody = hookBody(false, true);
const tags = ['group hooks'];

/** `/groups/:id/hooks[/:hook_id[/events]]`: a group's webhooks (its projects' events, subgroups included), for its Owners. */
export function groupHooksRoutes({ groupHooks, hookTests }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/groups/:id/hooks';

    api.get(base, { schema: { summary: "List a group's webhooks", tags, params: GroupPath, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { hooks, total } = await groupHooks.list(request.params.id, requireActor(request), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return hooks.map((hook) => serializeGroupHook(hook));
    });

    api.get(`${base}/:hook_id`, { schema: { summary: 'Get a group webhook', tags, params: HookPath } }, async (request) => {
      return serializeGroupHook(await groupHooks.get(request.params.id, requireActor(request), request.params.hook_id));
    });

    api.post(base, { schema: { summary: 'Add a group webhook', tags, params: GroupPath, body: CreateBody } }, async (request, reply) => {
      const hook = await groupHooks.create(request.params.id, requireActor(request), (request.body ?? {}) as HookParams);
      return reply.code(201).send(serializeGroupHook(hook));
    });

    api.put(`${base}/:hook_id`, { schema: { summary: 'Edit a group webhook (re-enables a disabled one)', tags, params: HookPath, body: UpdateBody } }, async (request) => {
      return serializeGroupHook(await groupHooks.update(request.params.id, requireActor(request), request.params.hook_id, (request.body ?? {}) as HookParams));
    });

    api.delete(`${base}/:hook_id`, { schema: { summary: 'Delete a group webhook', tags, params: HookPath } }, async (request, reply) => {
      await groupHooks.remove(request.params.id, requireActor(request), request.params.hook_id);
      return reply.code(204).send();
    });

    api.post(`${base}/:hook_id/test/:trigger`, { schema: { summary: "Send a sample of an event, from the group's first project with commits, to a group webhook now", tags, params: TestPath } }, async (request, reply) => {
      await hookTests.testGroup(request.params.id, requireActor(request), request.params.hook_id, request.params.trigger);
      return reply.code(201).send({ message: '201 Created' });
    });

    api.get(`${base}/:hook_id/events`, { schema: { summary: "List a group webhook's last deliveries, newest first", tags, params: HookPath, querystring: EventsQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { logs, total } = await groupHooks.events(request.params.id, requireActor(request), request.params.hook_id, { status: request.query.status }, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return logs.map(serializeHookLog);
    });
  };
}
