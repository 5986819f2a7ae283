import type { Logger } from '../../../../shared/logger.ts';
import type { ArtifactStore } from '../../../../storage/types-blobs.ts';
import type { JobArtifactsStore } from '../../../../storage/types-ci-jobs.ts';
import type { NewTask } from '../../../../storage/types-tasks.ts';
import { PeriodicSweep } from '../../periodic-task.ts';

export const ARTIFACT_EXPIRY_TASK = 'artifact-expiry';

/** Records handled per query. */
const BATCH = 100;

export interface ArtifactExpiryDeps {
  jobArtifacts: Pick<JobArtifactsStore, 'listExpired' | 'find' | 'deleteForJob'>;
  artifactFiles: Pick<ArtifactStore, 'remove'>;
  queue: { enqueue(task: NewTask): Promise<unknown> };
  logger: Logger;
  clock?: () => number;
}

/**
 * Removes artifacts past their `expire_at` (set from `expire_in` at upload; `artifacts/keep`
 * clears it), as GitLab's ExpireBuildArtifactsWorker does: a timer enqueues one sweep task on
 * the durable queue (one pending at a time across coordinators, by its dedupe key), and the
 * task removes the records first, then the files (a crash between leaves unreferenced files,
 * never a record pointing at nothing).
 */
export class ArtifactExpiry extends PeriodicSweep {
  private readonly clock: () => number;

  constructor(private readonly deps: ArtifactExpiryDeps) {
    super(deps, ARTIFACT_EXPIRY_TASK, 'the artifact expiry sweep');
    this.clock = deps.clock ?? Date.now;
  }

  /** Removes every expired artifact; answers how many. */
  override async sweep(signal?: AbortSignal): Promise<number> {
    const { jobArtifacts, artifactFiles } = this.deps;
    let removed = 0;
    for (;;) {
      signal?.throwIfAborted();
      const now = new Date(this.clock()).toISOString();
      const expired = await jobArtifacts.listExpired(now, BATCH);
      if (expired.length === 0) break;
      let removedNow = 0;
      for (const artifact of expired) {
        // Only the record listed: a newer upload of the type, or a keep since, stays.
        const current = await jobArtifacts.find(artifact.job_id, artifact.file_type);
        if (current?.id !== artifact.id || current.expire_at === null || current.expire_at > now) continue;
        for (const path of await jobArtifacts.deleteForJob(artifact.job_id, [artifact.file_type])) await artifactFiles.remove(path);
        removedNow++;
      }
      removed += removedNow;
      if (expired.length < BATCH || removedNow === 0) break;
    }
    if (removed > 0) this.deps.logger.info({ removed }, 'removed expired job artifacts');
    return removed;
  }
}
