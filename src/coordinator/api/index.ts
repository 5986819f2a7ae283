import type { FastifyInstance } from 'fastify';
import type { CoordinatorContext } from '../context.ts';
import { versionRoutes } from './version.ts';

/** Mounts every resource area under /api/v4. One plugin per area; each stays thin. */
export async function registerApi(api: FastifyInstance, context: CoordinatorContext): Promise<void> {
  const plugins = [versionRoutes];
  for (const plugin of plugins) await api.register(plugin(context));
}
