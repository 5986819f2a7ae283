import type { FastifyInstance } from 'fastify';
import type { CoordinatorServices, EdgeConfig } from '../wiring.ts';
import { groupChangesRoutes } from './namespaces/groups-changes.ts';
import { projectsRoutes } from './namespaces/projects.ts';
import { ciVariablesRoutes } from './ci/variables.ts';
import { runnerProtocolRoutes } from './ci/runners-protocol.ts';
import { runnerJobsRoutes } from './ci/runner-jobs.ts';
import { runnerJobUpdatesRoutes } from './ci/runner-job-updates.ts';
import { runnerArtifactsRoutes } from './ci/runner-artifacts.ts';

/**
 * The API of CoordinatorOptions `routes: 'local-run'` (`runner exec`): the runner protocol
 * (registration, job requests, job updates and traces, job artifacts) and the calls its
 * caller makes, creating the project (in the groups of its remote's path) and its CI variables. The other areas' modules are never
 * loaded: app.ts imports this module or index.ts, not both.
 */
export async function registerLocalRunApi(api: FastifyInstance, services: CoordinatorServices, edge: EdgeConfig): Promise<void> {
  const plugins = [groupChangesRoutes, projectsRoutes, ciVariablesRoutes, runnerProtocolRoutes, runnerJobsRoutes, runnerJobUpdatesRoutes, runnerArtifactsRoutes];
  for (const plugin of plugins) await api.register(plugin(services, edge));
}
