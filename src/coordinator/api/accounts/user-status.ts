import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { USER_AVAILABILITIES } from '../../../storage/types-user-status.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeUserStatus } from '../../http/serializers/accounts/user-status.ts';
import { CLEAR_STATUS_AFTER, type ClearStatusAfter } from '../../services/accounts/user-status.ts';
import type { CoordinatorServices } from '../../wiring.ts';
import { UserIdOrUsername } from './users.ts';

const StatusBody = Type.Object({
  emoji: Type.Optional(Param.string({ description: 'An emoji name; `speech_balloon` when only a message is given' })),
  message: Type.Optional(Param.string({ description: 'At most 100 characters' })),
  availability: Type.Optional(Param.oneOf([...USER_AVAILABILITIES])),
  clear_status_after: Type.Optional(Param.oneOf(Object.keys(CLEAR_STATUS_AFTER) as ClearStatusAfter[])),
});

const tags = ['users'];

/** `GET/PUT /user/status` and `GET /users/:id/status`. */
export function userStatusRoutes({ userStatus }: CoordinatorServices): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/user/status', { schema: { summary: "The signed-in user's status", tags } }, async (request) => serializeUserStatus(await userStatus.own(requireActor(request))));

    api.put('/user/status', { schema: { summary: "Set the signed-in user's status (without emoji and message: clear it)", tags, body: StatusBody } }, async (request) => {
      const { emoji, message, availability, clear_status_after: clearStatusAfter } = request.body;
      return serializeUserStatus(await userStatus.set(requireActor(request), { emoji, message, availability, clearStatusAfter }));
    });

    api.get('/users/:id/status', { schema: { summary: "A user's status", tags, params: UserIdOrUsername } }, async (request) => serializeUserStatus(await userStatus.of(request.actor, request.params.id)));
  };
}
