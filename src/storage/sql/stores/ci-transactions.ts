import { inTransaction, type Db } from '../database.ts';
import type { SecretBox } from '../../secret-box.ts';
import type { CiStores, CiTransactions } from '../../types-ci-transactions.ts';
import { SqlCiJobsStore } from './ci-jobs.ts';
import { SqlJobArtifactsStore } from './ci-job-artifacts.ts';
import { SqlJobQueueStore } from './ci-job-queue.ts';
import { SqlPipelinesStore } from './ci-pipelines.ts';
import { SqlResourceGroupsStore } from './ci-resource-groups.ts';
import { SqlPipelineVariablesStore, SqlStagesStore } from './ci-stages.ts';
import { SqlDeploymentsStore, SqlEnvironmentsStore } from './environments.ts';
import { SqlTasksStore } from './tasks.ts';

/** The CI stores over one handle (the database, or a transaction on it). */
export function createCiStores(db: Db, secrets: SecretBox): CiStores {
  return {
    pipelines: new SqlPipelinesStore(db),
    pipelineVariables: new SqlPipelineVariablesStore(db, secrets),
    stages: new SqlStagesStore(db),
    jobs: new SqlCiJobsStore(db, secrets),
    jobQueue: new SqlJobQueueStore(db, secrets),
    resourceGroups: new SqlResourceGroupsStore(db, secrets),
    jobArtifacts: new SqlJobArtifactsStore(db, secrets),
    environments: new SqlEnvironmentsStore(db),
    deployments: new SqlDeploymentsStore(db),
    tasks: new SqlTasksStore(db),
  };
}

export class SqlCiTransactions implements CiTransactions {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  run<T>(work: (stores: CiStores) => Promise<T>): Promise<T> {
    return inTransaction(this.db, (trx) => work(createCiStores(trx, this.secrets)));
  }
}
