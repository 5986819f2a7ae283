import type { ArtifactStore, TraceStore } from '../../../../storage/types-blobs.ts';
import type { CiTransactions } from '../../../../storage/types-ci-transactions.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { PersistentPipelineRefs } from './persistent-refs.ts';
import { groupsLetGo, recordAssignmentTasks } from './resource-groups.ts';

export interface PipelineRemovalDeps {
  transactions: CiTransactions;
  /** Artifact files under the data directory. */
  artifactFiles: Pick<ArtifactStore, 'remove'>;
  /** Trace stores holding bytes outside the jobs' rows (trace files; database chunks go with their job rows). */
  traces: ReadonlyArray<Pick<TraceStore, 'remove'>>;
  logger?: Pick<Logger, 'warn'>;
  /** The pipeline's `refs/pipelines/<id>`, removed after the commit. */
  persistentRefs?: Pick<PersistentPipelineRefs, 'removeDeleted'>;
}

/**
 * Deletes a pipeline whole. One transaction removes its row, and with it (foreign keys) its
 * stages, variables, jobs, artifact records and trace chunks, after reading which files the
 * jobs left (and recording, for each resource group one of its jobs held, that the group
 * assigns its resource anew); the files and the pipeline's persistent ref go after the commit. A crash between the two leaves unreferenced
 * files, never records pointing at missing ones.
 */
export class PipelineRemoval {
  constructor(private readonly deps: PipelineRemovalDeps) {}

  /** false when the pipeline no longer exists. */
  async remove(pipelineId: number): Promise<boolean> {
    const removed = await this.deps.transactions.run(async (stores) => {
      const pipeline = await stores.pipelines.lockForProcessing(pipelineId);
      if (!pipeline) return null;
      const jobs = await stores.jobs.loadPipelineJobs(pipelineId);
      const jobIds = jobs.map((job) => job.id);
      const artifactPaths = (await stores.jobArtifacts.listForJobs(jobIds)).map((artifact) => artifact.path);
      if (!(await stores.pipelines.delete(pipelineId))) return null;
      // A deleted job of a resource group that held the resource, or that it was kept for, lets go of it: the next may have it.
      await recordAssignmentTasks(stores, pipeline.project_id, groupsLetGo(jobs), new Date().toISOString());
      return { projectId: pipeline.project_id, jobIds, artifactPaths };
    });
    if (!removed) return false;
    await this.deps.persistentRefs?.removeDeleted(removed.projectId, pipelineId);
    await this.removeFiles(removed.jobIds, removed.artifactPaths);
    return true;
  }

  private async removeFiles(jobIds: readonly number[], artifactPaths: readonly string[]): Promise<void> {
    const attempts = [
      ...artifactPaths.map((path) => () => this.deps.artifactFiles.remove(path)),
      ...jobIds.flatMap((jobId) => this.deps.traces.map((traces) => () => traces.remove(jobId))),
    ];
    for (const attempt of attempts) {
      try {
        await attempt();
      } catch (error) {
        // The records are gone already: a file that cannot be removed now is only disk space.
        this.deps.logger?.warn({ err: error }, 'pipeline deletion left a file behind');
      }
    }
  }
}
