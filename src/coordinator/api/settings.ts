import type { FastifyPluginAsync } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { requireAdmin } from '../http/auth.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeSettings } from '../services/settings.ts';
import { SETTINGS_SCHEMA } from '../services/settings/schema.ts';
import { requireAtLeastOne } from './at-least-one.ts';

/** `GET|PUT /application/settings` (administrators only). */
export function settingsRoutes(context: CoordinatorContext): FastifyPluginAsync {
  return async (api) => {
    api.get('/application/settings', async (request) => {
      requireAdmin(request);
      return serializeSettings(await context.settings.current());
    });

    api.put('/application/settings', async (request) => {
      requireAdmin(request);
      const params = paramsOf(request);
      requireAtLeastOne(params, SETTINGS_SCHEMA.map((setting) => setting.name));
      return serializeSettings(await context.settings.change(params));
    });
  };
}
