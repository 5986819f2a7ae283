import type { FastifyPluginAsync } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { requireAdmin } from '../http/auth.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeSettings } from '../services/settings.ts';

/** `GET|PUT /application/settings` (administrators only). */
export function settingsRoutes(context: CoordinatorContext): FastifyPluginAsync {
  return async (api) => {
    api.get('/application/settings', async (request) => {
      requireAdmin(request);
      return serializeSettings(await context.settings.current());
    });

    api.put('/application/settings', async (request) => {
      requireAdmin(request);
      return serializeSettings(await context.settings.change(paramsOf(request)));
    });
  };
}
