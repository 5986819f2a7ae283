import { FileArtifactStore } from '../storage/fs/artifacts.ts';
import { FileTraceStore } from '../storage/fs/traces.ts';
import type { CoordinatorContext } from './context.ts';
import { PipelineRemoval } from './services/pipelines/pipeline-removal.ts';
import { PipelineViews } from './services/pipelines/pipeline-views.ts';
import { PipelinesService } from './services/pipelines/pipelines.ts';
import { PipelineProcessing } from './services/pipelines/processing.ts';

/** The CI area's services (pipelines, jobs, statuses, settings), each with its narrow dependencies. */
export function buildCiServices(context: CoordinatorContext) {
  const { stores, lookup, permissions } = context;
  const pipelineProcessing = new PipelineProcessing({ transactions: stores.ciTransactions });
  const pipelineViews = new PipelineViews({
    users: stores.users,
    namespaces: stores.namespaces,
    projects: stores.projects,
    pipelines: stores.pipelines,
    runners: stores.runners,
    artifacts: stores.jobArtifacts,
    repositories: context.repositories,
  });
  const pipelineRemoval = new PipelineRemoval({
    transactions: stores.ciTransactions,
    artifactFiles: new FileArtifactStore(context.config.dataDir),
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
    pipelineVariables: stores.pipelineVariables,
    jobs: stores.jobs,
    processing: pipelineProcessing,
    removal: pipelineRemoval,
    views: pipelineViews,
  });
  return { pipelineProcessing, pipelines };
}
