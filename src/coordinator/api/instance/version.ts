import type { FastifyPluginAsync } from 'fastify';
import { GANTRY_VERSION, GITLAB_COMPATIBLE_VERSION } from '../../../shared/version.ts';
import { requireActor } from '../../http/auth.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

/** `GET /version`: the GitLab version this API follows, and Gantry's own. */
export function versionRoutes(_services: CoordinatorServices, _edge: EdgeConfig): FastifyPluginAsync {
  return async (api) => {
    api.get('/version', { schema: { summary: 'The version of the API', tags: ['version'] } }, async (request) => {
      requireActor(request);
      return { version: `${GITLAB_COMPATIBLE_VERSION}-gantry`, revision: GANTRY_VERSION };
    });
  };
}
