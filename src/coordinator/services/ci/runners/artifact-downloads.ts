import { GantryError } from '../../../../shared/errors.ts';
import type { ArtifactStore } from '../../../../storage/types-blobs.ts';
import type { JobArtifactsStore } from '../../../../storage/types-ci-jobs.ts';
import { availableArchive } from '../pipelines/artifact-rules.ts';
import type { JobDownload } from '../pipelines/job-artifacts.ts';
import type { JobTokenAccess } from './job-token-access.ts';

export interface DependencyArtifactsDeps {
  tokens: Pick<JobTokenAccess, 'downloadableJob'>;
  jobArtifacts: Pick<JobArtifactsStore, 'find'>;
  artifactFiles: Pick<ArtifactStore, 'read'>;
  clock?: () => number;
}

/**
 * `GET /jobs/:id/artifacts` (reference/runner-protocol.md §6.2): a job's archive for the jobs
 * that depend on it, with a job token (JobTokenAccess.downloadableJob says which). The same
 * availability rule as the jobs API: absent, expired or erased archives are 404. Streamed.
 */
export class DependencyArtifacts {
  private readonly clock: () => number;

  constructor(private readonly deps: DependencyArtifactsDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  async archive(jobId: number, token: string | undefined): Promise<JobDownload> {
    const job = await this.deps.tokens.downloadableJob(jobId, token);
    const now = new Date(this.clock()).toISOString();
    const archive = availableArchive(job, await this.deps.jobArtifacts.find(job.id, 'archive'), now);
    const file = archive && (await this.deps.artifactFiles.read(archive.path));
    if (!archive || !file) throw new GantryError('GANTRY_E_ARTIFACT_NOT_FOUND');
    return { ...file, fileName: archive.file_name };
  }
}
