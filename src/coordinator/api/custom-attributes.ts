import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { missingParam } from '../../shared/errors.ts';
import type { CustomAttributeSubject } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import { requireAdmin } from '../http/auth.ts';
import { pageRequest, setPaginationHeaders, slicePage } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { CustomAttributesService } from '../services/custom-attributes.ts';

const SUBJECTS: ReadonlyArray<[prefix: string, subject: CustomAttributeSubject]> = [
  ['users', 'user'],
  ['groups', 'group'],
  ['projects', 'project'],
];

interface AttributePath {
  id: string;
  key: string;
}

/** `/{users|groups|projects}/:id/custom_attributes[/:key]` (administrators only). */
export function customAttributesRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const attributes = new CustomAttributesService(context.stores.customAttributes, context.lookup);
  return async (api) => {
    for (const [prefix, subject] of SUBJECTS) {
      const base = `/${prefix}/:id/custom_attributes`;

      api.get<{ Params: { id: string } }>(base, async (request, reply) => {
        requireAdmin(request);
        const page = pageRequest(paramsOf(request));
        const all = await attributes.list(subject, request.params.id);
        setPaginationHeaders(request, reply, context.config.externalUrl, page, { total: all.length });
        return slicePage(all, page);
      });

      api.get<{ Params: AttributePath }>(`${base}/:key`, async (request) => {
        requireAdmin(request);
        return attributes.get(subject, request.params.id, request.params.key);
      });

      api.put<{ Params: AttributePath }>(`${base}/:key`, async (request) => {
        requireAdmin(request);
        const value = requiredValue(request);
        return attributes.set(subject, request.params.id, request.params.key, value);
      });

      api.delete<{ Params: AttributePath }>(`${base}/:key`, async (request, reply) => {
        requireAdmin(request);
        await attributes.delete(subject, request.params.id, request.params.key);
        return reply.code(204).send();
      });
    }
  };
}

/** `value` must be given; an empty string reaches the service, which answers "can't be blank". */
function requiredValue(request: FastifyRequest): string {
  const value = paramsOf(request).string('value');
  if (value === undefined) throw missingParam('value');
  return value;
}
