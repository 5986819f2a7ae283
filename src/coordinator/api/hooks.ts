import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type, type TSchema } from '#deps/typebox';
import { HOOK_EVENT_FLAGS } from '../../storage/types-hooks.ts';
import { requireActor } from '../http/auth.ts';
import { Param } from '../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../http/pagination.ts';
import { serializeHookLog, serializeProjectHook } from '../http/serializers/hooks.ts';
import type { HookParams } from '../services/hooks/hook-settings.ts';
import { HOOK_TEST_TRIGGERS } from '../services/hooks/hook-test.ts';
import type { CoordinatorServices, EdgeConfig } from '../wiring.ts';

const PROJECT_ID = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const ProjectPath = Type.Object(PROJECT_ID);
const HookPath = Type.Object({ ...PROJECT_ID, hook_id: Param.integer({ description: 'The hook id' }) });
const TestPath = Type.Object({ ...PROJECT_ID, hook_id: Param.integer({ description: 'The hook id' }), trigger: Param.oneOf(HOOK_TEST_TRIGGERS, { description: 'The event to send a sample of' }) });
const PageQuery = Type.Object(PAGINATION);
export const EventsQuery = Type.Object({ ...PAGINATION, status: Type.Optional(Param.oneOf(['successful', 'client_failure', 'server_failure'], { description: 'Only deliveries with this outcome' })) });

/** A project or group hook's POST (`url` required) or PUT body (a group hook's with its own two flags). */
export function hookBody(urlRequired: boolean, groupFlags = false): TSchema {
  const properties: Record<string, TSchema> = {
    url: urlRequired ? Param.string({ description: 'Where events are sent' }) : Type.Optional(Param.string({ description: 'Where events are sent' })),
    name: Type.Optional(Param.string({ maxLength: 255 })),
    description: Type.Optional(Param.string({ maxLength: 2048 })),
    token: Type.Optional(Param.string({ maxLength: 255, description: 'Sent as X-Gitlab-Token; never shown' })),
    enable_ssl_verification: Type.Optional(Param.boolean()),
    push_events_branch_filter: Type.Optional(Param.string({ description: 'Push events only for matching branches (wildcards)' })),
    branch_filter_strategy: Type.Optional(Param.oneOf(['wildcard', 'regex', 'all_branches'])),
  };
  for (const flag of HOOK_EVENT_FLAGS) properties[flag] = Type.Optional(Param.boolean({ description: 'Event subscription' }));
  if (groupFlags) {
    properties.subgroup_events = Type.Optional(Param.boolean({ description: 'Subgroups created or deleted under the group' }));
    properties.member_events = Type.Optional(Param.boolean({ description: "The group's members added, edited or removed" }));
  }
  return Type.Object(properties);
}
const CreateBody = hookBody(true);
const UpdateBody = hookBody(false);

const tags = ['project hooks'];

/** `/projects/:id/hooks[/:hook_id[/events]]`: a project's webhooks, for Maintainers and Owners. */
export function projectHooksRoutes({ projectHooks, hookTests }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/hooks';

    api.get(base, { schema: { summary: "List a project's webhooks", tags, params: ProjectPath, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { hooks, total } = await projectHooks.list(request.params.id, requireActor(request), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return hooks.map((hook) => serializeProjectHook(hook));
    });

    api.get(`${base}/:hook_id`, { schema: { summary: 'Get a project webhook', tags, params: HookPath } }, async (request) => {
      const { id, hook_id: hookId } = request.params;
      return serializeProjectHook(await projectHooks.get(id, requireActor(request), hookId));
    });

    api.post(base, { schema: { summary: 'Add a project webhook', tags, params: ProjectPath, body: CreateBody } }, async (request, reply) => {
      const hook = await projectHooks.create(request.params.id, requireActor(request), (request.body ?? {}) as HookParams);
      return reply.code(201).send(serializeProjectHook(hook));
    });

    api.put(`${base}/:hook_id`, { schema: { summary: 'Edit a project webhook (re-enables a disabled one)', tags, params: HookPath, body: UpdateBody } }, async (request) => {
      const { id, hook_id: hookId } = request.params;
      return serializeProjectHook(await projectHooks.update(id, requireActor(request), hookId, (request.body ?? {}) as HookParams));
    });

    api.delete(`${base}/:hook_id`, { schema: { summary: 'Delete a project webhook', tags, params: HookPath } }, async (request, reply) => {
      const { id, hook_id: hookId } = request.params;
      await projectHooks.remove(id, requireActor(request), hookId);
      return reply.code(204).send();
    });

    api.post(`${base}/:hook_id/test/:trigger`, { schema: { summary: "Send a sample of an event to a webhook now (GitLab's test call)", tags, params: TestPath } }, async (request, reply) => {
      const { id, hook_id: hookId, trigger } = request.params;
      await hookTests.test(id, requireActor(request), hookId, trigger);
      return reply.code(201).send({ message: '201 Created' });
    });

    api.get(`${base}/:hook_id/events`, { schema: { summary: "List a webhook's last deliveries, newest first", tags, params: HookPath, querystring: EventsQuery } }, async (request, reply) => {
      const { id, hook_id: hookId } = request.params;
      const page = pageOf(request.query);
      const { logs, total } = await projectHooks.events(id, requireActor(request), hookId, { status: request.query.status }, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return logs.map(serializeHookLog);
    });
  };
}
