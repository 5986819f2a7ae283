import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { invalidParam } from '../../../shared/errors.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeMemberView } from '../../http/serializers/namespaces/members.ts';
import type { MemberInput, MemberSourceKind } from '../../services/namespaces/members.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const SOURCES: ReadonlyArray<[prefix: 'projects' | 'groups', kind: MemberSourceKind]> = [
  ['projects', 'project'],
  ['groups', 'group'],
];

const ListQuery = Type.Object({
  query: Type.Optional(Param.string({ description: 'Part of the name or username' })),
  user_ids: Type.Optional(Param.integers({ description: 'Only these users' })),
  ...PAGINATION,
});

const ACCESS_LEVEL = Param.integer({ description: 'Projects: 10, 20, 30 or 40; groups also 50' });
const EXPIRES_AT = Type.Optional(Param.string({ description: 'The membership ends on this day (YYYY-MM-DD); empty to clear' }));

const AddBody = Type.Object({ user_id: Param.integer({ description: 'The user to add' }), access_level: ACCESS_LEVEL, expires_at: EXPIRES_AT });
const UpdateBody = Type.Object({ access_level: ACCESS_LEVEL, expires_at: EXPIRES_AT });

/** `/{projects|groups}/:id/members[/all][/:user_id]`: direct (or also inherited) members of a project or group. */
export function membersRoutes({ members }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    for (const [prefix, kind] of SOURCES) {
      const base = `/${prefix}/:id/members`;
      const what = kind === 'project' ? 'project' : 'group';
      const SourcePath = Type.Object({ id: Param.string({ description: `The ${what}'s id or URL-encoded full path` }) });
      const MemberPath = Type.Object({ id: SourcePath.properties.id, user_id: Param.integer({ description: 'The member' }) });
      const tags = [prefix];

      for (const [route, listing] of [[base, 'direct'], [`${base}/all`, 'all']] as const) {
        const summary = listing === 'all' ? `List the ${what}'s members, inherited ones included` : `List the ${what}'s direct members`;
        api.get(route, { schema: { summary, tags, params: SourcePath, querystring: ListQuery } }, async (request, reply) => {
          const page = pageOf(request.query);
          const filter = { query: request.query.query, userIds: request.query.user_ids };
          const source = { kind, ref: request.params.id };
          const range = { offset: page.offset, limit: page.perPage };
          const { items, total } = listing === 'all' ? await members.listAll(source, request.actor, filter, range) : await members.list(source, request.actor, filter, range);
          setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
          return items.map((view) => serializeMemberView(view, edge.externalUrl));
        });
      }

      api.get(`${base}/all/:user_id`, { schema: { summary: `Get a member of the ${what}, inherited ones included`, tags, params: MemberPath } }, async (request) => {
        const view = await members.getFromAll({ kind, ref: request.params.id }, request.actor, request.params.user_id);
        return serializeMemberView(view, edge.externalUrl);
      });

      api.get(`${base}/:user_id`, { schema: { summary: `Get a direct member of the ${what}`, tags, params: MemberPath } }, async (request) => {
        return serializeMemberView(await members.get({ kind, ref: request.params.id }, request.actor, request.params.user_id), edge.externalUrl);
      });

      api.post(base, { schema: { summary: `Add a member to the ${what}`, tags, params: SourcePath, body: AddBody } }, async (request, reply) => {
        const actor = requireActor(request);
        const view = await members.add({ kind, ref: request.params.id }, actor, request.body.user_id, memberInput(request.body));
        return reply.code(201).send(serializeMemberView(view, edge.externalUrl));
      });

      api.put(`${base}/:user_id`, { schema: { summary: `Change a member of the ${what}`, tags, params: MemberPath, body: UpdateBody } }, async (request) => {
        const actor = requireActor(request);
        const view = await members.update({ kind, ref: request.params.id }, actor, request.params.user_id, memberInput(request.body));
        return serializeMemberView(view, edge.externalUrl);
      });

      api.delete(`${base}/:user_id`, { schema: { summary: `Remove a member from the ${what}`, tags, params: MemberPath } }, async (request, reply) => {
        await members.remove({ kind, ref: request.params.id }, requireActor(request), request.params.user_id);
        return reply.code(204).send();
      });
    }
  };
}

/** access_level is required on create and update; expires_at is a date, empty to clear, absent to keep. */
function memberInput(body: { access_level: number; expires_at?: string }): MemberInput {
  return { accessLevel: body.access_level, expiresAt: clearableDate('expires_at', body.expires_at) };
}

function clearableDate(name: string, value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === '') return null;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) throw invalidParam(name, 'is invalid');
  return value;
}
