import type { CoordinatorContext } from './context.ts';
import { ProjectHooksService } from './services/hooks/project-hooks.ts';

/** The webhooks area: project hooks' settings and logs. */
export function buildHookServices(context: CoordinatorContext) {
  const { stores, lookup, permissions, settings } = context;
  return {
    projectHooks: new ProjectHooksService({ hooks: stores.hooks, deliveries: stores.hookDeliveries, lookup, permissions, settings }),
  };
}
