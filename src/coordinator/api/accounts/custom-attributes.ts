import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import type { CustomAttributeSubject } from '../../../storage/types.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders, slicePage } from '../../http/pagination.ts';
import { serializeCustomAttribute } from '../../http/serializers/namespaces/projects.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const SUBJECTS: ReadonlyArray<[prefix: string, subject: CustomAttributeSubject, idDescription: string]> = [
  ['users', 'user', 'User id or username'],
  ['groups', 'group', 'Group id or URL-encoded full path'],
  ['projects', 'project', 'Project id or URL-encoded full path'],
];

const tags = ['custom_attributes'];
const ListQuery = Type.Object({ ...PAGINATION });
/** `value` must be given; an empty string reaches the service, which answers "can't be blank". */
const SetBody = Type.Object({ value: Param.string({ description: 'The value (at most 255 characters)' }) });

/** `/{users|groups|projects}/:id/custom_attributes[/:key]` (administrators only). */
export function customAttributesRoutes({ customAttributes: attributes }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    for (const [prefix, subject, idDescription] of SUBJECTS) {
      const base = `/${prefix}/:id/custom_attributes`;
      const SubjectPath = Type.Object({ id: Param.string({ description: idDescription }) });
      const AttributePath = Type.Object({ id: Param.string({ description: idDescription }), key: Param.string({ description: 'Attribute key' }) });

      api.get(base, { schema: { summary: `List the custom attributes of a ${subject} (administrators)`, tags, params: SubjectPath, querystring: ListQuery } }, async (request, reply) => {
        const page = pageOf(request.query);
        const all = await attributes.list(request.actor, subject, request.params.id);
        setPaginationHeaders(request, reply, edge.externalUrl, page, { total: all.length });
        return slicePage(all, page).map(serializeCustomAttribute);
      });

      api.get(`${base}/:key`, { schema: { summary: `Get a custom attribute of a ${subject} (administrators)`, tags, params: AttributePath } }, async (request) => {
        return serializeCustomAttribute(await attributes.get(request.actor, subject, request.params.id, request.params.key));
      });

      api.put(`${base}/:key`, { schema: { summary: `Set a custom attribute of a ${subject} (administrators)`, tags, params: AttributePath, body: SetBody } }, async (request) => {
        return serializeCustomAttribute(await attributes.set(request.actor, subject, request.params.id, request.params.key, request.body.value));
      });

      api.delete(`${base}/:key`, { schema: { summary: `Delete a custom attribute of a ${subject} (administrators)`, tags, params: AttributePath } }, async (request, reply) => {
        await attributes.delete(request.actor, subject, request.params.id, request.params.key);
        return reply.code(204).send();
      });
    }
  };
}
