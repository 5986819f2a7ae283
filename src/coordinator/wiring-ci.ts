import { CompileSandbox, type CompileSandboxOptions } from '../ci-sandbox/index.ts';
import type { ClosingStep } from './closing-steps.ts';
import { FileArtifactStore } from '../storage/fs/artifacts.ts';
import { FileTraceStore } from '../storage/fs/traces.ts';
import { DEFAULT_ZIP_INDEX_LIMITS, type ArtifactStore, type TraceStore, type ZipIndexLimits } from '../storage/types-blobs.ts';
import type { CoordinatorContext } from './context.ts';
import { ArchiveMembers } from './services/ci/pipelines/archive-members.ts';
import { CommitStatusesService } from './services/ci/pipelines/commit-statuses.ts';
import { JobArtifactsService } from './services/ci/pipelines/job-artifacts.ts';
import { JobViews } from './services/ci/pipelines/job-views.ts';
import { BridgeActions } from './services/ci/pipelines/bridge-actions.ts';
import { JobsService } from './services/ci/pipelines/jobs.ts';
import { PipelineRemoval } from './services/ci/pipelines/pipeline-removal.ts';
import { PersistentPipelineRefs, PIPELINE_FINISHED_REF_TASK } from './services/ci/pipelines/persistent-refs.ts';
import { PipelineViews } from './services/ci/pipelines/pipeline-views.ts';
import { PipelinesService } from './services/ci/pipelines/pipelines.ts';
import { serverIdentity } from './services/ci/server-identity.ts';
import { EVENT_PRUNING_TASK, EventPruning } from './services/events/pruning.ts';
import { PipelineCreation } from './services/ci/pipelines/creation.ts';
import { RemoteIncludes } from './services/ci/pipelines/remote-includes.ts';
import { RedundantPipelines } from './services/ci/pipelines/redundant-pipelines.ts';
import { DownstreamPipelines } from './services/ci/pipelines/downstream.ts';
import { BRIDGE_STATUS_TASK, CANCEL_CHILDREN_TASK, DOWNSTREAM_PIPELINE_TASK } from './services/ci/pipelines/downstream-tasks.ts';
import { DownstreamTargets } from './services/ci/pipelines/downstream-target.ts';
import { DEPLOYMENT_MERGE_REQUESTS_TASK, DeploymentMergeRequestLinks } from './services/ci/deployment-merge-requests.ts';
import { PIPELINE_FINISHED_AUTO_MERGE_TASK, PIPELINE_FINISHED_EMAIL_TASK, pipelineFinishedHandler } from './services/ci/pipelines/finished-tasks.ts';
import { PipelineProcessing, SCHEDULED_TIME_TASK, scheduledTimeHandler, type ProcessedEvent } from './services/ci/pipelines/processing.ts';
import { CANCELED_JOB_COVERAGE_TASK, canceledJobCoverageHandler } from './services/ci/pipelines/pipeline-coverage.ts';
import { ResourceGroupAssignment } from './services/ci/pipelines/resource-group-assignment.ts';
import { RESOURCE_GROUP_TASK } from './services/ci/pipelines/resource-groups.ts';
import { RESOURCE_GROUP_SWEEP_TASK, ResourceGroupSweep } from './services/ci/pipelines/resource-group-sweep.ts';
import { ResourceGroupsService } from './services/ci/resource-groups.ts';
import { PUSH_PIPELINE_TASK, PushPipelines } from './services/ci/pipelines/push.ts';
import { CiLint } from './services/ci/pipelines/lint.ts';
import { ParentArtifacts } from './services/ci/pipelines/parent-artifacts.ts';
import { PipelineRuns } from './services/ci/pipelines/runs.ts';
import { SCHEDULE_PIPELINE_TASK, SchedulePipelines } from './services/ci/pipelines/schedules.ts';
import { RefWriteAccess } from './services/repository/ref-write-access.ts';
import { TaskQueue, TaskWorker } from './services/task-queue.ts';
import { HOUSEKEEPING_TASK, housekeepingTaskHandler } from './services/repository/housekeeping.ts';
import { COMMIT_REFERENCES_TASK } from './services/planning/commit-references.ts';
import { buildMergeRequestGit } from './wiring-merge-request-git.ts';
import type { MergeRequestObserver } from './services/planning/merge-requests/observers.ts';
import { MERGE_STATUS_CHECK_TASK } from './services/planning/merge-requests/merge-status.ts';
import { buildCommitReferences, buildMergeRequestMerging } from './wiring-planning.ts';
import { AUTO_MERGE_TASK } from './services/planning/merge-requests/merge-when-pipeline-succeeds.ts';
import { LINK_ISSUES_TASK } from './services/planning/merge-requests/issue-links.ts';
import { buildRunnerJobServices, type RunnerJobOptions } from './wiring-runner-jobs.ts';
import { JobStatusWatch } from './services/ci/runners/job-watch.ts';
import { DependencyArtifacts } from './services/ci/runners/artifact-downloads.ts';
import { ARTIFACT_EXPIRY_TASK, ArtifactExpiry } from './services/ci/runners/artifact-expiry.ts';
import { ENVIRONMENT_AUTO_STOP_TASK, EnvironmentAutoStop } from './services/ci/environment-auto-stop.ts';
import { EnvironmentStopAction } from './services/ci/environment-stop.ts';
import { BRANCH_ENVIRONMENTS_STOP_TASK, EnvironmentBranchStop } from './services/ci/environment-branch-stop.ts';
import { EnvironmentMergeRequestStop, MERGE_REQUEST_ENVIRONMENTS_STOP_TASK } from './services/ci/environment-merge-request-stop.ts';
import { STALE_MERGE_LOCKS_TASK } from './services/planning/merge-requests/stale-merge-locks.ts';
import { ArtifactUploads } from './services/ci/runners/artifact-uploads.ts';
import { JobTokenAccess } from './services/ci/runners/job-token-access.ts';
import { JobQueueWakeups } from './services/ci/runners/queue-wakeups.ts';
import type { MailOptions } from './services/integrations/mail-outbox.ts';
import { buildIntegrationMail, buildOutboundDeliveries } from './wiring-integrations.ts';
import { buildMergeRequestPipelines } from './wiring-merge-request-pipelines.ts';
import { MERGE_REQUEST_PIPELINE_TASK } from './services/ci/pipelines/merge-request-pipelines.ts';
import { buildHookDeliveries, type HookDeliveryOptions } from './wiring-hooks.ts';
import { MergeRequestPermissions } from './services/access/merge-request-permissions.ts';
import { OpenMergeRequests } from './services/ci/pipelines/open-merge-requests.ts';

/** How the CI background work runs (tests shorten the intervals), and the bounds of artifacts archives. */
export interface CiRuntimeOptions {
  /** Task worker poll interval when idle (default 1 s; in-process enqueues wake it at once). */
  taskPollIntervalMs?: number;
  /** How often due pipeline schedules are looked for (default 10 s). */
  scheduleIntervalMs?: number;
  /**
   * Run queued tasks and schedules in this process (default true). False leaves them to other
   * coordinators on the same database; pushes still record their tasks.
   */
  runTasks?: boolean;
  /** Runner job updates and traces: the per-job trace limit, update intervals, stuck and timeout sweeps, the coverage scan's budget. */
  runnerJobs?: RunnerJobOptions;
  /** How often a sweep of expired artifacts is queued (default 7 minutes, GitLab's ExpireBuildArtifactsWorker). */
  artifactExpiryIntervalMs?: number;
  /** How often environments past their `auto_stop_at` are looked for (default 1 minute). */
  environmentAutoStopIntervalMs?: number;
  /** Members and central directory bytes an artifacts archive may have (default 200,000 and 64 MiB); larger uploads are refused (413). */
  archiveMemberLimits?: Partial<ZipIndexLimits>;
  /**
   * Where CI files compile (pipeline creation, lint): worker threads, their number, and the
   * limits of each compile, among them the compute-time deadline and the heap ceiling.
   */
  compile?: CompileSandboxOptions;
  /** Mail of the emails-on-push and pipelines-email integrations (its tasks run on this worker). */
  mail?: MailOptions;
  /** Webhook deliveries (their own task worker). */
  hooks?: HookDeliveryOptions;
}

/** Where job traces and artifact files live. */
export interface CiBlobStores {
  traces: TraceStore;
  artifactFiles: ArtifactStore;
}

/**
 * Traces: append-only files under the data directory for one coordinator on SQLite; chunks in
 * the database on PostgreSQL, where several coordinators share the data. Artifact files:
 * under `<dataDir>/artifacts/`. Readers and writers (the runner routes) use these same stores.
 */
export function ciBlobStores(context: Pick<CoordinatorContext, 'dialect' | 'stores' | 'config'>): CiBlobStores {
  const traces = context.dialect === 'postgres' ? context.stores.traceChunks : new FileTraceStore(context.config.dataDir);
  return { traces, artifactFiles: new FileArtifactStore(context.config.dataDir) };
}

function archiveLimits(given: Partial<ZipIndexLimits> = {}): ZipIndexLimits {
  return {
    maxMembers: given.maxMembers ?? DEFAULT_ZIP_INDEX_LIMITS.maxMembers,
    maxDirectoryBytes: given.maxDirectoryBytes ?? DEFAULT_ZIP_INDEX_LIMITS.maxDirectoryBytes,
  };
}

/**
 * The CI area's services (pipelines, jobs, statuses, settings), each with its narrow dependencies.
 * `decorateBlobs` wraps the trace and artifact stores (the metrics count their bytes).
 */
export function buildCiServices(context: CoordinatorContext, options: CiRuntimeOptions = {}, decorateBlobs: (blobs: CiBlobStores) => CiBlobStores = (blobs) => blobs) {
  const { stores, lookup, permissions, repositories, logger } = context;
  let wakeWorker: () => void = () => {};
  const taskQueue = new TaskQueue(stores.tasks, () => wakeWorker());
  // Runners' long polls wake when processing (creation, retry, play, timers, ...) enqueues jobs.
  const jobQueueWakeups = new JobQueueWakeups(context.jobQueueSignal);
  // Held runner keep-alives learn of status changes (cancels) at commit; on PostgreSQL, where
  // another coordinator may commit them, they also read the job twice a second.
  const jobStatusWatch = new JobStatusWatch({ jobs: stores.jobs }, { pollMs: context.dialect === 'postgres' ? 500 : 0 });
  const integrationMail = buildIntegrationMail(context, taskQueue, options.mail);
  const outboundDeliveries = buildOutboundDeliveries(context, taskQueue);
  const { hookDeliveries, hookWorker, hookEvents, hookPayloads } = buildHookDeliveries(context, { ...options.hooks, pollIntervalMs: options.taskPollIntervalMs, alsoHeard: outboundDeliveries });
  // One list of merge request observers for the whole coordinator (saved, refreshed, merged).
  const mergeRequestObservers: MergeRequestObserver[] = [];
  const mergeRequestMerging = buildMergeRequestMerging(context, taskQueue, mergeRequestObservers);
  mergeRequestObservers.push(hookEvents);
  const pipelineProcessing = new PipelineProcessing({
    transactions: stores.ciTransactions,
    wakeTasks: () => wakeWorker(),
    afterCommit: (processed) => {
      if (processed.enqueuedJobIds.length > 0) jobQueueWakeups.jobsEnqueued();
      jobStatusWatch.changed(statusChangedJobIds(processed));
      hookEvents.pipelineProcessed(processed);
    },
    // Recorded with the finish itself: a coordinator dying after the commit loses no merge or mail.
    finishedFollowers: [PIPELINE_FINISHED_AUTO_MERGE_TASK, PIPELINE_FINISHED_EMAIL_TASK, PIPELINE_FINISHED_REF_TASK],
  });
  const blobs = decorateBlobs(ciBlobStores(context));
  const archiveMembers = new ArchiveMembers({
    jobArtifacts: stores.jobArtifacts, artifactFiles: blobs.artifactFiles, limits: archiveLimits(options.archiveMemberLimits), logger,
  });
  const compileSandbox = new CompileSandbox(options.compile);
  const redundantPipelines = new RedundantPipelines({ pipelines: stores.pipelines, jobs: stores.jobs, repositories, transactions: stores.ciTransactions, processing: pipelineProcessing, logger });
  const remoteIncludes = new RemoteIncludes({ settings: context.settings });
  const openMergeRequests = new OpenMergeRequests({
    mergeRequests: stores.mergeRequests, projects: stores.projects, namespaces: stores.namespaces, mergeRequestPermissions: new MergeRequestPermissions(permissions),
  });
  const pipelineCreation = new PipelineCreation({
    compile: compileSandbox.compile,
    limits: options.compile?.limits,
    repositories,
    lookup,
    permissions,
    namespaces: stores.namespaces,
    projectVariables: stores.projectVariables,
    groupVariables: stores.groupVariables,
    instanceVariables: stores.instanceVariables,
    branchRules: context.protectedBranches,
    tagRules: context.protectedTags,
    transactions: stores.ciTransactions,
    processing: pipelineProcessing,
    parentArtifacts: new ParentArtifacts({ jobs: stores.jobs, jobArtifacts: stores.jobArtifacts, members: archiveMembers }),
    server: serverIdentity(context.config.externalUrl),
    redundant: redundantPipelines,
    remoteIncludes,
    openMergeRequests,
  });
  const pipelineRuns = new PipelineRuns({ creation: pipelineCreation, lookup, permissions, jobs: stores.jobs, triggers: stores.triggers, users: stores.users, namespaces: stores.namespaces });
  const pipelineViews = new PipelineViews({
    users: stores.users,
    namespaces: stores.namespaces,
    projects: stores.projects,
    pipelines: stores.pipelines,
    runners: stores.runners,
    artifacts: stores.jobArtifacts,
    repositories,
  });
  const { mergeRequestPipelines, mergeRequestPipelinesView } = buildMergeRequestPipelines(context, { queue: taskQueue, creation: pipelineCreation, views: pipelineViews });
  // A refresh that moved the source asks for a merge request pipeline.
  mergeRequestObservers.push(mergeRequestPipelines);
  const pushPipelines = new PushPipelines({
    queue: taskQueue, creation: pipelineCreation, projects: stores.projects, users: stores.users, repositories, logger,
    afterCreate: (pipeline) => mergeRequestPipelines.branchPipelineCreated(pipeline),
  });
  const commitReferences = buildCommitReferences(context, taskQueue);
  const mergeRequestGit = buildMergeRequestGit(context, taskQueue, mergeRequestObservers);
  const refWrites = new RefWriteAccess({ branchRules: context.protectedBranches, tagRules: context.protectedTags, repositories });
  const schedulePipelines = new SchedulePipelines({
    schedules: stores.schedules, queue: taskQueue, creation: pipelineCreation, projects: stores.projects, users: stores.users, lookup, permissions, refs: refWrites, logger,
  });
  const downstreamTargets = new DownstreamTargets({
    lookup, permissions, namespaces: stores.namespaces, pipelines: stores.pipelines, pipelineVariables: stores.pipelineVariables, repositories,
    jobs: stores.jobs, jobArtifacts: stores.jobArtifacts,
    projectVariables: stores.projectVariables, groupVariables: stores.groupVariables, instanceVariables: stores.instanceVariables,
    mergeRequestInfo: (pipeline) => mergeRequestPipelines.infoForPipeline(pipeline),
  });
  const downstreamPipelines = new DownstreamPipelines({
    creation: pipelineCreation,
    processing: pipelineProcessing,
    targets: downstreamTargets,
    projects: stores.projects,
    users: stores.users,
    pipelines: stores.pipelines,
    jobs: stores.jobs,
    logger,
  });
  const ciLint = new CiLint({ creation: pipelineCreation, lookup, permissions, remoteIncludes });
  const refRules = { branches: context.protectedBranches, tags: context.protectedTags };
  const persistentRefs = new PersistentPipelineRefs({ repositories, transactions: stores.ciTransactions, logger });
  const pipelineRemoval = new PipelineRemoval({
    persistentRefs,
    transactions: stores.ciTransactions,
    artifactFiles: blobs.artifactFiles,
    // Trace chunks in the database go with their job rows; trace files need removing.
    traces: [new FileTraceStore(context.config.dataDir)],
    logger: context.logger,
  });
  const pipelines = new PipelinesService({
    lookup,
    permissions,
    branchRules: context.protectedBranches,
    tagRules: context.protectedTags,
    pipelines: stores.pipelines,
    repositories,
    pipelineVariables: stores.pipelineVariables,
    jobs: stores.jobs,
    deployments: stores.deployments,
    processing: pipelineProcessing,
    removal: pipelineRemoval,
    views: pipelineViews,
  });
  const jobViews = new JobViews({
    pipelines: stores.pipelines, users: stores.users, runners: stores.runners, jobArtifacts: stores.jobArtifacts, namespaces: stores.namespaces, repositories,
  });
  const resourceGroups = new ResourceGroupsService({ resourceGroups: stores.resourceGroups, lookup, permissions, views: jobViews, queue: taskQueue });
  const jobTokenAccess = new JobTokenAccess({ jobs: stores.jobs });
  const jobs = new JobsService({
    lookup, permissions, jobs: stores.jobs, jobArtifacts: stores.jobArtifacts, processing: pipelineProcessing, views: jobViews, refRules, ...blobs,
    jobTokens: jobTokenAccess, projects: stores.projects, deployments: stores.deployments, bridges: new BridgeActions({ permissions, targets: downstreamTargets, branches: context.protectedBranches, deployments: stores.deployments }),
  });
  const runnerJobs = buildRunnerJobServices(context, { processing: pipelineProcessing, traces: blobs.traces, jobStatusWatch }, options.runnerJobs);
  const jobArtifacts = new JobArtifactsService({ jobs, jobsStore: stores.jobs, jobArtifacts: stores.jobArtifacts, ...blobs, members: archiveMembers, traceWatch: runnerJobs.traceWatch });
  const artifactUploads = new ArtifactUploads({
    tokens: jobTokenAccess, settings: context.settings, jobs: stores.jobs, jobArtifacts: stores.jobArtifacts, artifactFiles: blobs.artifactFiles, members: archiveMembers, logger,
  });
  const dependencyArtifacts = new DependencyArtifacts({ tokens: jobTokenAccess, jobArtifacts: stores.jobArtifacts, artifactFiles: blobs.artifactFiles });
  const artifactExpiry = new ArtifactExpiry({ jobArtifacts: stores.jobArtifacts, artifactFiles: blobs.artifactFiles, queue: taskQueue, logger });
  const environmentStopAction = new EnvironmentStopAction({ deployments: stores.deployments, jobs: stores.jobs, processing: pipelineProcessing });
  const resourceGroupSweep = new ResourceGroupSweep({ jobQueue: stores.jobQueue, queue: taskQueue, logger });
  const environmentAutoStop = new EnvironmentAutoStop({ environments: stores.environments, stopAction: environmentStopAction, queue: taskQueue, logger });
  const environmentBranchStop = new EnvironmentBranchStop({
    environments: stores.environments, deployments: stores.deployments, projects: stores.projects, users: stores.users, permissions, stopAction: environmentStopAction, queue: taskQueue,
  });
  const environmentMergeRequestStop = new EnvironmentMergeRequestStop({
    mergeRequests: stores.mergeRequests, pipelines: stores.pipelines, environments: stores.environments, deployments: stores.deployments, projects: stores.projects, users: stores.users,
    jobs: stores.jobs, processing: pipelineProcessing, permissions, stopAction: environmentStopAction, queue: taskQueue,
  });
  // A merge or close stops the environments of the request's head pipeline.
  mergeRequestObservers.push(environmentMergeRequestStop);
  const eventPruning = new EventPruning({ events: stores.activityEvents, queue: taskQueue, logger });
  const commitStatuses = new CommitStatusesService({
    lookup, permissions, jobs: stores.jobs, pipelines: stores.pipelines, refs: refWrites, users: stores.users, repositories, views: jobViews, refRules, transactions: stores.ciTransactions, processing: pipelineProcessing,
  });
  const taskWorker = new TaskWorker(stores.tasks, {
    handlers: {
      [PUSH_PIPELINE_TASK]: pushPipelines.handler(),
      [MERGE_REQUEST_PIPELINE_TASK]: mergeRequestPipelines.handler(),
      [COMMIT_REFERENCES_TASK]: commitReferences.handler(),
      [MERGE_STATUS_CHECK_TASK]: mergeRequestGit.mergeStatusCheck.handler(),
      [AUTO_MERGE_TASK]: mergeRequestMerging.autoMerge.handler(),
      [LINK_ISSUES_TASK]: mergeRequestMerging.issueLinker.linkIssuesHandler(),
      [PIPELINE_FINISHED_AUTO_MERGE_TASK]: pipelineFinishedHandler(stores.pipelines, (pipeline) => mergeRequestMerging.autoMerge.recordPipelineFinished(pipeline)),
      [PIPELINE_FINISHED_EMAIL_TASK]: pipelineFinishedHandler(stores.pipelines, (pipeline) => integrationMail.recordPipelineFinished(pipeline)),
      [PIPELINE_FINISHED_REF_TASK]: persistentRefs.removalHandler(),
      [STALE_MERGE_LOCKS_TASK]: mergeRequestMerging.staleMergeLocks.handler(),
      [SCHEDULE_PIPELINE_TASK]: schedulePipelines.handler(),
      [SCHEDULED_TIME_TASK]: scheduledTimeHandler(pipelineProcessing),
      [CANCELED_JOB_COVERAGE_TASK]: canceledJobCoverageHandler({ jobs: stores.jobs, transactions: stores.ciTransactions, coverage: runnerJobs.jobCoverage }),
      [RESOURCE_GROUP_TASK]: new ResourceGroupAssignment({ processing: pipelineProcessing }).handler(),
      [RESOURCE_GROUP_SWEEP_TASK]: resourceGroupSweep.handler(),
      [ARTIFACT_EXPIRY_TASK]: artifactExpiry.handler(),
      [ENVIRONMENT_AUTO_STOP_TASK]: environmentAutoStop.handler(),
      [BRANCH_ENVIRONMENTS_STOP_TASK]: environmentBranchStop.handler(),
      [MERGE_REQUEST_ENVIRONMENTS_STOP_TASK]: environmentMergeRequestStop.handler(),
      [EVENT_PRUNING_TASK]: eventPruning.handler(),
      [DOWNSTREAM_PIPELINE_TASK]: downstreamPipelines.createHandler(),
      [BRIDGE_STATUS_TASK]: downstreamPipelines.statusHandler(),
      [CANCEL_CHILDREN_TASK]: downstreamPipelines.cancelChildrenHandler(),
      ...integrationMail.handlers(),
      ...outboundDeliveries.handlers(),
      [DEPLOYMENT_MERGE_REQUESTS_TASK]: new DeploymentMergeRequestLinks({ deployments: stores.deployments, environments: stores.environments, repositories }).handler(),
      [HOUSEKEEPING_TASK]: housekeepingTaskHandler(repositories),
    },
    logger,
    pollIntervalMs: options.taskPollIntervalMs,
    // Leases carry the instance id: a dead coordinator's are ended as soon as it is found dead.
    owner: context.instance.id,
  });
  wakeWorker = () => taskWorker.wake();

  /** Background work: pushes' pipelines, delayed jobs and schedules through the durable task queue. */
  const ciRuntime = {
    start(): void {
      context.events.onPushRecorded((push) => pushPipelines.record(push));
      context.events.onPushRecorded((push) => commitReferences.record(push));
      context.events.onPushRecorded((push) => environmentBranchStop.record(push));
      context.events.onPushRecorded((push) => mergeRequestGit.mergeRequestRefresher.recordPush(push));
      context.events.onPushRecorded((push) => integrationMail.recordPush(push));
      context.events.onPushRecorded((push) => outboundDeliveries.recordPush(push));
      context.events.onPushRecorded((push) => hookDeliveries.recordPush(push));
      context.events.onPushesRecorded((pushes) => hookDeliveries.recordRepositoryUpdate(pushes));
      context.events.onSystemEvent((event) => hookDeliveries.recordSystemEvent(event));
      if (options.runTasks === false) return;
      taskWorker.start();
      hookWorker.start();
      schedulePipelines.start(options.scheduleIntervalMs ?? 10_000);
      runnerJobs.staleJobs.start();
      artifactExpiry.start(options.artifactExpiryIntervalMs ?? 7 * 60_000);
      environmentAutoStop.start(options.environmentAutoStopIntervalMs ?? 60_000);
      resourceGroupSweep.start(5 * 60_000);
      eventPruning.start(24 * 60 * 60_000);
      mergeRequestMerging.staleMergeLocks.start(5 * 60_000);
    },
    async stop(step: ClosingStep = (_name, work) => work()): Promise<void> {
      artifactExpiry.stop();
      environmentAutoStop.stop();
      resourceGroupSweep.stop();
      eventPruning.stop();
      mergeRequestMerging.staleMergeLocks.stop();
      await step('the stale job sweep', () => runnerJobs.staleJobs.stop());
      await step('pipeline schedules', () => schedulePipelines.stop());
      await step('the task worker', () => taskWorker.stop(5_000));
      await step('pipeline and job hooks', () => hookEvents.settled());
      await step('the hook delivery thread', () => hookWorker.close(5_000));
      await step('the CI file compiler', () => compileSandbox.close());
    },
  };
  /**
   * Starts a compile worker ahead of the first compile (by compiling an empty document with the
   * limits pipeline creation uses, so that the worker is the one reused): for a caller that knows
   * a compile follows and has other work to do meanwhile (`runner exec`). Never throws.
   */
  const warmCompiler = async (): Promise<void> => {
    const nothing = { readFile: async () => null };
    await compileSandbox
      .compile('', { project: { id: 0, path: 'warm-up' }, ref: 'main', refType: 'branch', sha: '0'.repeat(40), source: 'push', files: nothing, limits: options.compile?.limits })
      .catch(() => undefined);
  };
  return {
    warmCompiler,
    hookEvents, hookDeliveries, hookPayloads,
    pipelineProcessing, pipelineCreation, pipelineRuns, downstreamPipelines, ciLint, pushPipelines, commitReferences, schedulePipelines, taskQueue, taskWorker, ciRuntime, hookWorker,
    ...mergeRequestGit,
    ciBlobs: blobs, pipelines, jobs, jobArtifacts, commitStatuses, ...runnerJobs, jobQueueWakeups,
    openMergeRequests, jobTokenAccess, resourceGroups, artifactUploads, dependencyArtifacts, artifactExpiry, resourceGroupSweep, environmentStopAction, environmentAutoStop, environmentBranchStop, environmentMergeRequestStop, eventPruning, redundantPipelines, ...mergeRequestMerging, mergeRequestPipelines, mergeRequestPipelinesView,
  };
}

export type CiServices = ReturnType<typeof buildCiServices>;

/** Jobs whose status an event changed (updates carry real ids). */
function statusChangedJobIds(processed: ProcessedEvent): number[] {
  return processed.result.changes.flatMap((change) => (change.kind === 'update' && change.patch.status !== undefined ? [change.jobId] : []));
}
