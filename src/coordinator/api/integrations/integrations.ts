import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type, type TSchema } from '#deps/typebox';
import { INTEGRATION_EVENT_FLAGS } from '../../../storage/types-integrations.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeIntegration } from '../../http/serializers/integrations.ts';
import { allFieldNames, INTEGRATIONS } from '../../services/integrations/catalogue.ts';
import type { IntegrationParams } from '../../services/integrations/integrations.ts';
import type { CoordinatorServices } from '../../wiring.ts';

const PROJECT_ID = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const ProjectPath = Type.Object(PROJECT_ID);
const SLUGS = INTEGRATIONS.map((definition) => (definition.gitlabSlug === definition.slug ? definition.slug : `${definition.slug} (GitLab: ${definition.gitlabSlug})`));
const IntegrationPath = Type.Object({
  ...PROJECT_ID,
  slug: Param.string({ description: `The integration: ${SLUGS.join(', ')}` }),
});

function bodySchema(): TSchema {
  const properties: Record<string, TSchema> = {};
  for (const [name, kind] of allFieldNames()) {
    const schema = kind === 'boolean' ? Param.boolean() : kind === 'integer' ? Param.integer() : Param.string();
    properties[name] = Type.Optional(schema);
  }
  for (const flag of INTEGRATION_EVENT_FLAGS) properties[flag] = Type.Optional(Param.boolean({ description: 'Event subscription' }));
  return Type.Object(properties);
}
const UpdateBody = bodySchema();

const tags = ['integrations'];

/**
 * `/projects/:id/services/<slug>` (the spec's neutral slugs, canonical) and GitLab clients'
 * `/projects/:id/integrations/<slug>` and `/services/<gitlab slug>` (aliases), plus the lists
 * of active integrations. Maintainers and Owners only.
 */
export function integrationsRoutes({ integrations }: CoordinatorServices): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    for (const base of ['/projects/:id/services', '/projects/:id/integrations']) {
      api.get(base, { schema: { summary: "List a project's active integrations", tags, params: ProjectPath } }, async (request) => {
        return (await integrations.list(request.params.id, requireActor(request))).map(serializeIntegration);
      });

      api.get(`${base}/:slug`, { schema: { summary: "Get an integration's settings", tags, params: IntegrationPath } }, async (request) => {
        const { id, slug } = request.params;
        return serializeIntegration(await integrations.get(id, requireActor(request), slug));
      });

      api.put(`${base}/:slug`, { schema: { summary: 'Create or edit an integration (activates it)', tags, params: IntegrationPath, body: UpdateBody } }, async (request) => {
        const { id, slug } = request.params;
        const params = (request.body ?? {}) as IntegrationParams;
        return serializeIntegration(await integrations.update(id, requireActor(request), slug, params));
      });

      api.delete(`${base}/:slug`, { schema: { summary: 'Remove an integration (it reads inactive afterwards)', tags, params: IntegrationPath } }, async (request, reply) => {
        const { id, slug } = request.params;
        await integrations.remove(id, requireActor(request), slug);
        return reply.code(204).send();
      });
    }
  };
}
