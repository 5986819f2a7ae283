import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { requireActor } from '../http/auth.ts';
import { pageRequest, setPaginationHeaders } from '../http/pagination.ts';
import type { Params } from '../http/params.ts';
import { paramsOf } from '../http/request-params.ts';
import { MembersService, type MemberInput, type MemberSourceKind } from '../services/members.ts';

const SOURCES: ReadonlyArray<[prefix: string, kind: MemberSourceKind]> = [
  ['projects', 'project'],
  ['groups', 'group'],
];

interface MemberPath {
  id: string;
  user_id: string;
}

/** `/{projects|groups}/:id/members[/all][/:user_id]`: direct (or also inherited) members of a project or group. */
export function membersRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const members = new MembersService(context);
  return async (api) => {
    for (const [prefix, kind] of SOURCES) {
      const base = `/${prefix}/:id/members`;

      for (const [route, listing] of [[base, 'direct'], [`${base}/all`, 'all']] as const) {
        api.get<{ Params: { id: string } }>(route, async (request, reply) => {
          const params = paramsOf(request);
          const page = pageRequest(params);
          const filter = { query: params.string('query'), userIds: params.intArray('user_ids') };
          const source = await members.source(kind, request.params.id, request.actor);
          const range = { offset: page.offset, limit: page.perPage };
          const { items, total } = listing === 'all' ? await members.listAll(source, filter, range) : await members.list(source, filter, range);
          setPaginationHeaders(request, reply, context.config.externalUrl, page, { total });
          return items;
        });
      }

      api.get<{ Params: MemberPath }>(`${base}/all/:user_id`, async (request) => {
        const userId = paramsOf(request).requiredInt('user_id');
        return members.getFromAll(await members.source(kind, request.params.id, request.actor), userId);
      });

      api.get<{ Params: MemberPath }>(`${base}/:user_id`, async (request) => {
        const userId = paramsOf(request).requiredInt('user_id');
        return members.get(await members.source(kind, request.params.id, request.actor), userId);
      });

      api.post<{ Params: { id: string } }>(base, async (request, reply) => {
        const actor = requireActor(request);
        const params = paramsOf(request);
        const userId = params.requiredInt('user_id');
        const input = memberInput(params);
        const source = await members.source(kind, request.params.id, actor);
        return reply.code(201).send(await members.add(source, actor, userId, input));
      });

      api.put<{ Params: MemberPath }>(`${base}/:user_id`, async (request) => {
        const { actor, params, userId } = memberRequest(request);
        const input = memberInput(params);
        return members.update(await members.source(kind, request.params.id, actor), actor, userId, input);
      });

      api.delete<{ Params: MemberPath }>(`${base}/:user_id`, async (request, reply) => {
        const { actor, userId } = memberRequest(request);
        await members.remove(await members.source(kind, request.params.id, actor), actor, userId);
        return reply.code(204).send();
      });
    }
  };
}

function memberRequest(request: FastifyRequest) {
  const actor = requireActor(request);
  const params = paramsOf(request);
  return { actor, params, userId: params.requiredInt('user_id') };
}

/** access_level is required on create and update; expires_at is a date, empty to clear. */
function memberInput(params: Params): MemberInput {
  const accessLevel = params.requiredInt('access_level');
  const expiresAt = params.has('expires_at') ? (params.date('expires_at') ?? null) : undefined;
  return { accessLevel, expiresAt };
}
