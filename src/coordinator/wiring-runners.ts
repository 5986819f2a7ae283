import type { CoordinatorContext } from './context.ts';
import { IdTokens } from './services/ci/id-tokens.ts';
import { JobPayloads } from './services/ci/runners/job-payloads.ts';
import { CiSigningKey } from './services/ci/signing-key.ts';
import { DEFAULT_LONG_POLL_MS, JobRequests } from './services/ci/runners/job-requests.ts';
import { RunnerManagerHeartbeats } from './services/ci/runners/manager-heartbeats.ts';
import { ProjectRunnersService } from './services/ci/runners/project-runners.ts';
import { RunnerRegistration } from './services/ci/runners/registration.ts';
import { RunnersService } from './services/ci/runners/runners.ts';
import { InstanceRegistrationToken } from './services/ci/runners/tokens.ts';
import { UserRunners } from './services/ci/runners/user-runners.ts';
import type { CiServices } from './wiring-ci.ts';

/** The runners area: registration (runner side), job requests, the runners API and registration tokens. */
export function buildRunnersServices(context: CoordinatorContext, ci: Pick<CiServices, 'pipelineProcessing' | 'jobQueueWakeups' | 'mergeRequestPipelines' | 'openMergeRequests'>, longPollSeconds?: number) {
  const { stores, lookup, permissions, settings } = context;
  const instanceRegistrationToken = new InstanceRegistrationToken({ store: stores.settings, settings });
  const ciSigningKey = new CiSigningKey({ store: stores.ciSigningKey });
  const heartbeats = new RunnerManagerHeartbeats({ managers: stores.runnerManagers });
  const runnerRegistration = new RunnerRegistration({
    runners: stores.runners,
    managers: stores.runnerManagers,
    heartbeats,
    registrationTokens: stores.registrationTokens,
    instanceToken: instanceRegistrationToken,
    settings,
  });
  const jobRequests = new JobRequests({
    runners: stores.runners,
    heartbeats,
    queue: stores.jobQueue,
    transactions: stores.ciTransactions,
    processing: ci.pipelineProcessing,
    wakeups: ci.jobQueueWakeups,
    longPollMs: longPollSeconds === undefined ? DEFAULT_LONG_POLL_MS : longPollSeconds * 1000,
    payloads: new JobPayloads({
      projects: stores.projects,
      pipelines: stores.pipelines,
      pipelineVariables: stores.pipelineVariables,
      users: stores.users,
      jobArtifacts: stores.jobArtifacts,
      environments: stores.environments,
      repositories: context.repositories,
      namespaces: stores.namespaces,
      projectVariables: stores.projectVariables,
      groupVariables: stores.groupVariables,
      instanceVariables: stores.instanceVariables,
      externalUrl: context.config.externalUrl,
      mergeRequestInfo: (pipeline) => ci.mergeRequestPipelines.infoForPipeline(pipeline),
      openMergeRequests: ci.openMergeRequests,
      idTokens: new IdTokens(ciSigningKey),
      permissions,
      logger: context.logger,
    }),
  });
  const runners = new RunnersService({
    runners: stores.runners,
    managers: stores.runnerManagers,
    tokens: runnerRegistration,
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
  const userRunners = new UserRunners({ runners: stores.runners, projects: stores.projects, namespaces: stores.namespaces, permissions, settings });
  return { ciSigningKey, instanceRegistrationToken, runnerRegistration, jobRequests, runners, projectRunners, userRunners };
}
