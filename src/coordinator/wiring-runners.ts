import type { CoordinatorContext } from './context.ts';
import { ProjectRunnersService } from './services/runners/project-runners.ts';
import { RunnerRegistration } from './services/runners/registration.ts';
import { RunnersService } from './services/runners/runners.ts';
import { InstanceRegistrationToken } from './services/runners/tokens.ts';

/** The runners area: registration (runner side), the runners API and registration tokens. */
export function buildRunnersServices(context: CoordinatorContext) {
  const { stores, lookup, permissions, settings } = context;
  const instanceRegistrationToken = new InstanceRegistrationToken({ store: stores.settings, settings });
  const runnerRegistration = new RunnerRegistration({ runners: stores.runners, registrationTokens: stores.registrationTokens, instanceToken: instanceRegistrationToken });
  const runners = new RunnersService({
    runners: stores.runners,
    projects: stores.projects,
    namespaces: stores.namespaces,
    users: stores.users,
    jobs: stores.jobs,
    pipelines: stores.pipelines,
    scope: { namespaces: stores.namespaces, members: stores.members, projectQueries: stores.projectQueries, groupGroupLinks: stores.groupGroupLinks },
    permissions,
  });
  const projectRunners = new ProjectRunnersService({
    runners: stores.runners,
    projects: stores.projects,
    namespaces: stores.namespaces,
    registrationTokens: stores.registrationTokens,
    instanceToken: instanceRegistrationToken,
    runnersService: runners,
    lookup,
    permissions,
  });
  return { instanceRegistrationToken, runnerRegistration, runners, projectRunners };
}
