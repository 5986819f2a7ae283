import type { CoordinatorContext } from './context.ts';
import { NamespacesService } from './services/namespaces.ts';
import { buildRepositoryServices } from './wiring-repository.ts';

/**
 * The services of the API, each built with the narrow stores and collaborators it needs
 * (the second half of app.ts's wiring; nothing else builds services).
 */
export function buildServices(context: CoordinatorContext) {
  const { stores, lookup, permissions } = context;
  const namespaces = new NamespacesService({ namespaces: stores.namespaces, groupQueries: stores.groupQueries, members: stores.members, lookup, permissions });
  return { namespaces, ...buildRepositoryServices(context) };
}

export type CoordinatorServices = ReturnType<typeof buildServices>;

/** What the HTTP edge needs besides services: where the coordinator is reached. */
export interface EdgeConfig {
  externalUrl: string;
}
