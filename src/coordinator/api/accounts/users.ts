import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { atLeastOneOf } from '../../../shared/errors.ts';
import { requireActor } from '../../http/auth.ts';
import { messageAnswers } from '../../http/error-responses.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeUserBasic } from '../../http/serializers/user-basic.ts';
import { serializeUserAdmin, serializeUserPublic } from '../../http/serializers/accounts/users.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { AVATAR_UPLOAD, checkedAvatar } from './avatar-upload.ts';
import { CreateUserBody, IDENTITY_PARAMS, UpdateUserBody, userAttributes } from './users-params.ts';
import { requireAllOrNoneOf } from '../at-least-one.ts';

export const UserId = Type.Object({ id: Param.string({ description: 'User id' }) });
/** Routes GitLab resolves with `find_user` (`/users/:id/status`, `/users/:id/events`). */
export const UserIdOrUsername = Type.Object({ id: Param.string({ description: 'User id or username' }) });

const ListQuery = Type.Object({
  username: Type.Optional(Param.string({ description: 'Exactly this username' })),
  search: Type.Optional(Param.string({ description: 'Part of the name, username or e-mail address' })),
  active: Type.Optional(Param.boolean()),
  blocked: Type.Optional(Param.boolean()),
  external: Type.Optional(Param.boolean({ description: 'Only external users (administrators)' })),
  exclude_external: Type.Optional(Param.boolean()),
  created_before: Type.Optional(Param.dateTime()),
  created_after: Type.Optional(Param.dateTime()),
  extern_uid: Type.Optional(Param.string({ description: 'With provider: the user of this external identity (administrators)' })),
  provider: Type.Optional(Param.string()),
  order_by: Type.Optional(Param.oneOf(['id', 'name', 'username', 'created_at', 'updated_at'])),
  sort: Type.Optional(Param.oneOf(['asc', 'desc'])),
  admins: Type.Optional(Param.boolean({ description: 'Only administrators (administrators)' })),
  without_projects: Type.Optional(Param.boolean({ description: 'Only users without personal projects (administrators)' })),
  custom_attributes: Type.Optional(Param.hash({ description: 'Only users with these custom attributes (administrators)' })),
  ...PAGINATION,
});

const DeleteQuery = Type.Object({ hard_delete: Type.Optional(Param.boolean({ description: 'Also remove what the user contributed and the groups they alone own' })) });

const tags = ['users'];

/** `/users`, `/users/:id[/block|/unblock|/ban|/unban]` and `/user`. */
export function usersRoutes({ users, avatars, userActivity }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { externalUrl } = edge;
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/users', { schema: { summary: 'List users', tags, querystring: ListQuery } }, async (request, reply) => {
      const { query } = request;
      requireAllOrNoneOf(query, IDENTITY_PARAMS);
      const page = pageOf(query);
      const filter = {
        username: query.username,
        search: query.search,
        active: query.active,
        blocked: query.blocked,
        external: query.external,
        excludeExternal: query.exclude_external,
        createdBefore: query.created_before,
        createdAfter: query.created_after,
        externUid: query.extern_uid,
        provider: query.provider,
        orderBy: query.order_by,
        sort: query.sort,
        admins: query.admins,
        withoutProjects: query.without_projects,
        customAttributes: query.custom_attributes,
      };
      const { items, total } = await users.list(request.actor, filter, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      const filled = await userActivity.withDays(items.filter((item) => item.full).map((item) => item.user));
      const days = new Map(filled.map((user) => [user.id, user.last_activity_on]));
      return items.map(({ user, full }) => (full ? serializeUserAdmin({ ...user, last_activity_on: days.get(user.id) ?? null }, externalUrl) : serializeUserBasic(user, externalUrl)));
    });

    api.get('/users/:id', { schema: { summary: 'Get a user', tags, params: UserId } }, async (request) => {
      const { user, full } = await users.get(request.actor, request.params.id);
      return full ? serializeUserAdmin(await userActivity.withDay(user), externalUrl) : serializeUserPublic(user, externalUrl);
    });

    const createSchema = { summary: 'Create a user (administrators); a multipart `avatar` sets the avatar', tags, body: CreateUserBody };
    api.post('/users', { schema: createSchema, config: AVATAR_UPLOAD }, async (request, reply) => {
      const actor = requireActor(request);
      const { body } = request;
      const resetPassword = body.reset_password === true;
      // Grape's at_least_one_of: a password, or a reset instead.
      if (body.password === undefined && !resetPassword) throw atLeastOneOf(['password', 'reset_password']);
      users.requireAdministrator(actor);
      const avatar = await checkedAvatar(request, avatars);
      const input = { attributes: userAttributes(body), resetPassword, skipConfirmation: body.skip_confirmation, confirm: body.confirm };
      const created = await users.create(actor, input);
      return reply.code(201).send(serializeUserAdmin(await userActivity.withDay(avatar ? await avatars.attachToUser(created, avatar) : created), externalUrl));
    });

    const updateSchema = { summary: 'Change a user (administrators); a multipart `avatar` replaces the avatar', tags, params: UserId, body: UpdateUserBody };
    api.put('/users/:id', { schema: updateSchema, config: { ...AVATAR_UPLOAD, errorAnswers: messageAnswers(404, ['GANTRY_E_ALREADY_EXISTS']) } }, async (request) => {
      const actor = requireActor(request);
      await users.administered(actor, request.params.id);
      const avatar = await checkedAvatar(request, avatars);
      const user = await users.update(actor, request.params.id, userAttributes(request.body));
      return serializeUserAdmin(await userActivity.withDay(avatar ? await avatars.attachToUser(user, avatar) : user), externalUrl);
    });

    api.delete('/users/:id', { schema: { summary: 'Remove a user (administrators)', tags, params: UserId, querystring: DeleteQuery } }, async (request, reply) => {
      await users.remove(requireActor(request), request.params.id, request.query.hard_delete === true);
      return reply.code(204).send();
    });

    api.post('/users/:id/block', { schema: { summary: 'Block a user (administrators)', tags, params: UserId } }, async (request, reply) => {
      return reply.code(201).send(await users.block(requireActor(request), request.params.id));
    });

    api.post('/users/:id/unblock', { schema: { summary: 'Unblock a user (administrators)', tags, params: UserId } }, async (request, reply) => {
      return reply.code(201).send(await users.unblock(requireActor(request), request.params.id));
    });

    api.post('/users/:id/ban', { schema: { summary: 'Ban a user (administrators): a banned user cannot sign in', tags, params: UserId } }, async (request, reply) => {
      return reply.code(201).send(await users.ban(requireActor(request), request.params.id));
    });

    api.post('/users/:id/unban', { schema: { summary: 'Unban a user (administrators)', tags, params: UserId } }, async (request, reply) => {
      return reply.code(201).send(await users.unban(requireActor(request), request.params.id));
    });

    api.get('/user', { schema: { summary: 'The signed-in user', tags } }, async (request) => serializeUserAdmin(await userActivity.withDay(requireActor(request)), externalUrl));
  };
}
