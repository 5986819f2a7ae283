import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../http/auth.ts';
import { Param } from '../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../http/pagination.ts';
import { serializeSystemHook } from '../http/serializers/hooks.ts';
import type { SystemHookParams } from '../services/hooks/system-hooks.ts';
import type { CoordinatorServices, EdgeConfig } from '../wiring.ts';

const HookPath = Type.Object({ id: Param.integer({ description: 'The system hook id' }) });
const PageQuery = Type.Object(PAGINATION);

function systemHookBody(urlRequired: boolean) {
  const url = Param.string({ description: 'Where events are sent' });
  const flag = (description: string) => Type.Optional(Param.boolean({ description }));
  return Type.Object({
    url: urlRequired ? url : Type.Optional(url),
    name: Type.Optional(Param.string({ maxLength: 255 })),
    description: Type.Optional(Param.string({ maxLength: 2048 })),
    token: Type.Optional(Param.string({ maxLength: 255, description: 'Sent as X-Gitlab-Token; never shown' })),
    push_events: flag('Push events (on by default)'),
    tag_push_events: flag('Tag push events'),
    merge_requests_events: flag('Merge request events (accepted and stored; not sent yet)'),
    repository_update_events: flag('repository_update events (on by default)'),
    enable_ssl_verification: flag('Verify the receiver\'s certificate (default true)'),
    push_events_branch_filter: Type.Optional(Param.string({ description: 'Push events only for matching branches (wildcards)' })),
    branch_filter_strategy: Type.Optional(Param.oneOf(['wildcard', 'regex', 'all_branches'])),
  });
}
const CreateBody = systemHookBody(true);
const UpdateBody = systemHookBody(false);
const tags = ['system hooks'];

/** `/hooks[/:id]`: the instance's system hooks, for administrators. */
export function systemHooksRoutes({ systemHooks }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/hooks', { schema: { summary: 'List system hooks', tags, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { hooks, total } = await systemHooks.list(requireActor(request), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return hooks.map((hook) => serializeSystemHook(hook));
    });

    api.get('/hooks/:id', { schema: { summary: 'Get a system hook', tags, params: HookPath } }, async (request) => {
      return serializeSystemHook(await systemHooks.get(requireActor(request), request.params.id));
    });

    api.post('/hooks', { schema: { summary: 'Add a system hook', tags, body: CreateBody } }, async (request, reply) => {
      const hook = await systemHooks.create(requireActor(request), (request.body ?? {}) as SystemHookParams);
      return reply.code(201).send(serializeSystemHook(hook));
    });

    api.put('/hooks/:id', { schema: { summary: 'Edit a system hook (re-enables a disabled one)', tags, params: HookPath, body: UpdateBody } }, async (request) => {
      return serializeSystemHook(await systemHooks.update(requireActor(request), request.params.id, (request.body ?? {}) as SystemHookParams));
    });

    api.post('/hooks/:id', { schema: { summary: "Send GitLab's sample system event to a hook now", tags, params: HookPath } }, async (request, reply) => {
      return reply.code(201).send(await systemHooks.test(requireActor(request), request.params.id));
    });

    api.delete('/hooks/:id', { schema: { summary: 'Delete a system hook', tags, params: HookPath } }, async (request, reply) => {
      await systemHooks.remove(requireActor(request), request.params.id);
      return reply.code(204).send();
    });
  };
}
