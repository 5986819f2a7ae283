import { FileArtifactStore } from '../storage/fs/artifacts.ts';
import { FileTraceStore } from '../storage/fs/traces.ts';
import type { ArtifactStore, TraceStore } from '../storage/types-blobs.ts';
import type { CoordinatorContext } from './context.ts';
import { CommitStatusesService } from './services/pipelines/commit-statuses.ts';
import { JobArtifactsService } from './services/pipelines/job-artifacts.ts';
import { JobViews } from './services/pipelines/job-views.ts';
import { JobsService } from './services/pipelines/jobs.ts';
import { PipelineRemoval } from './services/pipelines/pipeline-removal.ts';
import { PipelineViews } from './services/pipelines/pipeline-views.ts';
import { PipelinesService } from './services/pipelines/pipelines.ts';
import { PipelineProcessing } from './services/pipelines/processing.ts';

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

/** The CI area's services (pipelines, jobs, statuses, settings), each with its narrow dependencies. */
export function buildCiServices(context: CoordinatorContext) {
  const { stores, lookup, permissions, repositories } = context;
  const pipelineProcessing = new PipelineProcessing({ transactions: stores.ciTransactions });
  const blobs = ciBlobStores(context);
  const refRules = { branches: context.protectedBranches, tags: context.protectedTags };
  const pipelineViews = new PipelineViews({
    users: stores.users,
    namespaces: stores.namespaces,
    projects: stores.projects,
    pipelines: stores.pipelines,
    runners: stores.runners,
    artifacts: stores.jobArtifacts,
    repositories,
  });
  const pipelineRemoval = new PipelineRemoval({
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
    pipelineVariables: stores.pipelineVariables,
    jobs: stores.jobs,
    processing: pipelineProcessing,
    removal: pipelineRemoval,
    views: pipelineViews,
  });
  const jobViews = new JobViews({
    pipelines: stores.pipelines, users: stores.users, runners: stores.runners, jobArtifacts: stores.jobArtifacts, namespaces: stores.namespaces, repositories,
  });
  const jobs = new JobsService({
    lookup, permissions, jobs: stores.jobs, jobArtifacts: stores.jobArtifacts, processing: pipelineProcessing, views: jobViews, refRules, ...blobs,
  });
  const jobArtifacts = new JobArtifactsService({ jobs, jobsStore: stores.jobs, jobArtifacts: stores.jobArtifacts, ...blobs });
  const commitStatuses = new CommitStatusesService({
    lookup, permissions, jobs: stores.jobs, users: stores.users, repositories, views: jobViews, refRules, transactions: stores.ciTransactions, processing: pipelineProcessing,
  });
  return { pipelineProcessing, ciBlobs: blobs, pipelines, jobs, jobArtifacts, commitStatuses };
}
