/**
 * Traces and artifacts for API tests before the runner routes write them: stored through
 * the coordinator's own stores (ciBlobStores), with the records and zip members the upload
 * will keep.
 */
import { Readable } from 'node:stream';
import yazl from 'yazl';
import type { Coordinator } from '../../src/coordinator/app.ts';
import { ciBlobStores } from '../../src/coordinator/wiring-ci.ts';
import { ArchiveMembers } from '../../src/coordinator/services/ci/pipelines/archive-members.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { DEFAULT_ZIP_INDEX_LIMITS } from '../../src/storage/types-blobs.ts';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';

/** Stores a zip of `files` as the job's artifacts archive (expiring at `expireAt`, default never). */
export async function storeArtifacts(coordinator: Coordinator, job: Pick<JobRecord, 'id' | 'project_id'>, files: Record<string, string>, expireAt: string | null = null): Promise<void> {
  const { artifactFiles } = ciBlobStores(coordinator.context);
  const { stores } = coordinator.context;
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  const stored = await artifactFiles.write({ projectId: job.project_id, jobId: job.id, fileName: 'artifacts.zip' }, Readable.from(zip.outputStream), { maxBytes: 10_000_000 });
  const members = new ArchiveMembers({ jobArtifacts: stores.jobArtifacts, artifactFiles, limits: DEFAULT_ZIP_INDEX_LIMITS, logger: silentLogger() });
  await stores.jobArtifacts.save(
    { job_id: job.id, project_id: job.project_id, file_type: 'archive', file_format: 'zip', file_name: 'artifacts.zip', size: stored.size, sha256: stored.sha256, path: stored.path, expire_at: expireAt, created_at: new Date().toISOString() },
    await members.index(stored.path, job.id),
  );
  await stores.jobs.update(job.id, { artifacts_expire_at: expireAt });
}

/** Appends `text` to the job's trace. */
export async function appendTrace(coordinator: Coordinator, job: Pick<JobRecord, 'id'>, text: string): Promise<void> {
  const { traces } = ciBlobStores(coordinator.context);
  await traces.append(job.id, await traces.size(job.id), Buffer.from(text));
}
