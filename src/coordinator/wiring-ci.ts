import { FileArtifactStore } from '../storage/fs/artifacts.ts';
import { FileTraceStore } from '../storage/fs/traces.ts';
import type { ArtifactStore, TraceStore } from '../storage/types-blobs.ts';
import type { CoordinatorContext } from './context.ts';
import { CommitStatusesService } from './services/pipelines/commit-statuses.ts';
import { JobArtifactsService } from './services/pipelines/job-artifacts.ts';
import { JobViews } from './services/pipelines/job-views.ts';
import { JobsService } from './services/pipelines/jobs.ts';
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
  return { pipelineProcessing, ciBlobs: blobs, jobs, jobArtifacts, commitStatuses };
}
