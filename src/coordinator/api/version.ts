import type { FastifyPluginAsync } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { GANTRY_VERSION, GITLAB_COMPATIBLE_VERSION } from '../../shared/version.ts';
import { requireActor } from '../http/auth.ts';

export function versionRoutes(_context: CoordinatorContext): FastifyPluginAsync {
  return async (api) => {
    api.get('/version', async (request) => {
      requireActor(request);
      return { version: `${GITLAB_COMPATIBLE_VERSION}-gantry`, revision: GANTRY_VERSION };
    });
  };
}
