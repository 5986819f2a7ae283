import type { FastifyPluginAsync } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { requireActor } from '../http/auth.ts';

export const GANTRY_VERSION = '0.1.0';
/** The GitLab release whose API and runner protocol we speak. */
export const GITLAB_COMPATIBLE_VERSION = '13.12.0';

export function versionRoutes(_context: CoordinatorContext): FastifyPluginAsync {
  return async (api) => {
    api.get('/version', async (request) => {
      requireActor(request);
      return { version: `${GITLAB_COMPATIBLE_VERSION}-gantry`, revision: GANTRY_VERSION };
    });
  };
}
