import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeFoundKey, serializeSshKeyWithUser } from '../../http/serializers/accounts/key-lookup.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const KeyLookupId = Type.Object({ id: Param.integer({ description: 'The SSH key' }) });
const FingerprintQuery = Type.Object({
  fingerprint: Param.string({ minLength: 1, description: 'MD5 (`ba:81:…`) or SHA-256 (`SHA256:…`) fingerprint of the key' }),
});

const tags = ['keys'];

/** Look a key up with its owner (administrators): `/keys/:id`, `/keys?fingerprint=`. */
export function keysRoutes({ keyLookup, userActivity }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/keys/:id', { schema: { summary: 'An SSH key with its user (administrators)', tags, params: KeyLookupId } }, async (request) => {
      const { key, user } = await keyLookup.byId(requireActor(request), request.params.id);
      return serializeSshKeyWithUser(key, user && (await userActivity.withDay(user)), edge.externalUrl);
    });

    api.get('/keys', { schema: { summary: 'The key of a fingerprint, a user’s or a deploy key (administrators)', tags, querystring: FingerprintQuery } }, async (request) => {
      const found = await keyLookup.byFingerprint(requireActor(request), request.query.fingerprint);
      if (found.kind === 'ssh' && found.user) return serializeFoundKey({ ...found, user: await userActivity.withDay(found.user) }, edge.externalUrl);
      return serializeFoundKey(found, edge.externalUrl);
    });
  };
}
