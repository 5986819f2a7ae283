/** The transaction that groups CI writes, and the stores it binds. */
import type { PipelineVariablesStore, PipelinesStore, StagesStore } from './types-ci.ts';
import type { CiJobsStore, JobArtifactsStore, JobQueueStore } from './types-ci-jobs.ts';
import type { DeploymentsStore, EnvironmentsStore } from './types-environments.ts';
import type { ResourceGroupsStore } from './types-resource-groups.ts';
import type { TasksStore } from './types-tasks.ts';

/** The CI stores, bound to one transaction. */
export interface CiStores {
  pipelines: PipelinesStore;
  pipelineVariables: PipelineVariablesStore;
  stages: StagesStore;
  jobs: CiJobsStore;
  jobQueue: JobQueueStore;
  resourceGroups: ResourceGroupsStore;
  jobArtifacts: JobArtifactsStore;
  environments: EnvironmentsStore;
  deployments: DeploymentsStore;
  tasks: TasksStore;
}

export interface CiTransactions {
  /**
   * Runs `work` in one database transaction with stores bound to it; a throw rolls back
   * everything. Transactions serialise their writes (`BEGIN IMMEDIATE` on SQLite, row locks on
   * PostgreSQL). Inside `work`, use only the stores it receives. A `StaleJobError` or a
   * conflict the database reports (deadlock, busy) means: run it again.
   */
  run<T>(work: (stores: CiStores) => Promise<T>): Promise<T>;
}
