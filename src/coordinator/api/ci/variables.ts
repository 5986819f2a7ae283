import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeGroupVariable, serializeInstanceVariable, serializeProjectVariable } from '../../http/serializers/ci/settings.ts';
import type { VariableChanges, VariableFilter } from '../../services/ci/variables.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const VARIABLE_TYPES = ['env_var', 'file'] as const;

const ProjectPath = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }) });
const ProjectKeyPath = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }), key: Param.string({ description: 'The variable key' }) });
const GroupPath = Type.Object({ id: Param.string({ description: 'Group id or URL-encoded full path' }) });
const GroupKeyPath = Type.Object({ id: Param.string({ description: 'Group id or URL-encoded full path' }), key: Param.string({ description: 'The variable key' }) });
const InstanceKeyPath = Type.Object({ key: Param.string({ description: 'The variable key' }) });
const PageQuery = Type.Object(PAGINATION);

const FILTER = {
  filter: Type.Optional(Param.hash({ description: 'filter[environment_scope]: which of several variables sharing the key (by environment scope)' })),
};
const FilterQuery = Type.Object(FILTER);

const COMMON_FLAGS = {
  variable_type: Type.Optional(Param.oneOf(VARIABLE_TYPES, { description: 'env_var (default) or file' })),
  protected: Type.Optional(Param.boolean({ description: 'Only given to pipelines on protected refs (default false)' })),
  masked: Type.Optional(Param.boolean({ description: 'Hidden in job logs; the value must be maskable (default false)' })),
  raw: Type.Optional(Param.boolean({ description: 'The runner leaves `$` references in the value unexpanded (default false)' })),
  description: Type.Optional(Param.nullable(Param.string({ description: 'What the variable is for: at most 255 characters (default null)' }))),
};
const MASKED_AND_HIDDEN = {
  masked_and_hidden: Type.Optional(Param.boolean({ description: 'Masked, and its value never shown by the API again (default false); only on create' })),
};

const ProjectCreateBody = Type.Object({
  key: Param.string({ minLength: 1, description: 'The key: at most 255 characters, only A-Z, a-z, 0-9 and _' }),
  value: Param.string({ description: 'The value' }),
  ...COMMON_FLAGS,
  ...MASKED_AND_HIDDEN,
  environment_scope: Type.Optional(Param.string({ description: 'The environments the variable is for (default *)' })),
});
const ProjectUpdateBody = Type.Object({ value: Type.Optional(Param.string({ description: 'The value' })), ...COMMON_FLAGS, ...FILTER });

const GroupCreateBody = Type.Object({
  key: Param.string({ minLength: 1, description: 'The key: at most 255 characters, only A-Z, a-z, 0-9 and _' }),
  value: Param.string({ description: 'The value' }),
  ...COMMON_FLAGS,
  ...MASKED_AND_HIDDEN,
});
const GroupUpdateBody = Type.Object({ value: Param.string({ description: 'The value' }), ...COMMON_FLAGS });

const InstanceCreateBody = Type.Object({
  key: Param.string({ minLength: 1, description: 'The key: at most 255 characters, only A-Z, a-z, 0-9 and _' }),
  value: Param.string({ description: 'The value' }),
  ...COMMON_FLAGS,
});
const InstanceUpdateBody = Type.Object({ value: Type.Optional(Param.string({ description: 'The value' })), ...COMMON_FLAGS });

function filterOf(source: { filter?: Record<string, string> }): VariableFilter {
  return { environmentScope: source.filter?.environment_scope };
}

interface ChangesBody {
  value?: string;
  variable_type?: (typeof VARIABLE_TYPES)[number];
  protected?: boolean;
  masked?: boolean;
  raw?: boolean;
  description?: string | null;
}

function changesOf(body: ChangesBody): VariableChanges {
  return { value: body.value, variableType: body.variable_type, protected: body.protected, masked: body.masked, raw: body.raw, description: body.description };
}

const tags = ['ci variables'];

/**
 * `/projects/:id/variables[/:key]` (Maintainers), `/groups/:id/variables[/:key]` (group
 * Maintainers and Owners) and `/admin/ci/variables[/:key]` (administrators).
 */
export function ciVariablesRoutes({ projectVariables, groupVariables, instanceVariables }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const project = '/projects/:id/variables';
    const group = '/groups/:id/variables';
    const instance = '/admin/ci/variables';

    api.get(project, { schema: { summary: "List a project's CI variables", tags, params: ProjectPath, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await projectVariables.list(request.params.id, requireActor(request), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeProjectVariable);
    });

    api.get(`${project}/:key`, { schema: { summary: 'Get a CI variable of a project', tags, params: ProjectKeyPath, querystring: FilterQuery } }, async (request) => {
      const { id, key } = request.params;
      return serializeProjectVariable(await projectVariables.get(id, requireActor(request), key, filterOf(request.query)));
    });

    api.post(project, { schema: { summary: 'Create a CI variable of a project', tags, params: ProjectPath, body: ProjectCreateBody } }, async (request, reply) => {
      const { body } = request;
      const input = { key: body.key, environmentScope: body.environment_scope, maskedAndHidden: body.masked_and_hidden, ...changesOf(body), value: body.value };
      return reply.code(201).send(serializeProjectVariable(await projectVariables.create(request.params.id, requireActor(request), input)));
    });

    api.put(`${project}/:key`, { schema: { summary: 'Update a CI variable of a project', tags, params: ProjectKeyPath, body: ProjectUpdateBody } }, async (request) => {
      const { id, key } = request.params;
      return serializeProjectVariable(await projectVariables.update(id, requireActor(request), key, filterOf(request.body), changesOf(request.body)));
    });

    api.delete(`${project}/:key`, { schema: { summary: 'Delete a CI variable of a project', tags, params: ProjectKeyPath, querystring: FilterQuery } }, async (request, reply) => {
      const { id, key } = request.params;
      await projectVariables.remove(id, requireActor(request), key, filterOf(request.query));
      return reply.code(204).send();
    });

    api.get(group, { schema: { summary: "List a group's CI variables", tags, params: GroupPath, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await groupVariables.list(request.params.id, requireActor(request), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeGroupVariable);
    });

    api.get(`${group}/:key`, { schema: { summary: 'Get a CI variable of a group', tags, params: GroupKeyPath } }, async (request) => {
      return serializeGroupVariable(await groupVariables.get(request.params.id, requireActor(request), request.params.key));
    });

    api.post(group, { schema: { summary: 'Create a CI variable of a group', tags, params: GroupPath, body: GroupCreateBody } }, async (request, reply) => {
      const input = { key: request.body.key, maskedAndHidden: request.body.masked_and_hidden, ...changesOf(request.body), value: request.body.value };
      return reply.code(201).send(serializeGroupVariable(await groupVariables.create(request.params.id, requireActor(request), input)));
    });

    api.put(`${group}/:key`, { schema: { summary: 'Update a CI variable of a group', tags, params: GroupKeyPath, body: GroupUpdateBody } }, async (request) => {
      const { id, key } = request.params;
      return serializeGroupVariable(await groupVariables.update(id, requireActor(request), key, changesOf(request.body)));
    });

    api.delete(`${group}/:key`, { schema: { summary: 'Delete a CI variable of a group', tags, params: GroupKeyPath } }, async (request, reply) => {
      await groupVariables.remove(request.params.id, requireActor(request), request.params.key);
      return reply.code(204).send();
    });

    api.get(instance, { schema: { summary: "List the instance's CI variables", tags, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await instanceVariables.list(requireActor(request), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return items.map(serializeInstanceVariable);
    });

    api.get(`${instance}/:key`, { schema: { summary: 'Get a CI variable of the instance', tags, params: InstanceKeyPath } }, async (request) => {
      return serializeInstanceVariable(await instanceVariables.get(requireActor(request), request.params.key));
    });

    api.post(instance, { schema: { summary: 'Create a CI variable of the instance', tags, body: InstanceCreateBody } }, async (request, reply) => {
      const input = { key: request.body.key, ...changesOf(request.body), value: request.body.value };
      return reply.code(201).send(serializeInstanceVariable(await instanceVariables.create(requireActor(request), input)));
    });

    api.put(`${instance}/:key`, { schema: { summary: 'Update a CI variable of the instance', tags, params: InstanceKeyPath, body: InstanceUpdateBody } }, async (request) => {
      return serializeInstanceVariable(await instanceVariables.update(requireActor(request), request.params.key, changesOf(request.body ?? {})));
    });

    api.delete(`${instance}/:key`, { schema: { summary: 'Delete a CI variable of the instance', tags, params: InstanceKeyPath } }, async (request, reply) => {
      await instanceVariables.remove(requireActor(request), request.params.key);
      return reply.code(204).send();
    });
  };
}
